#include "cli/completion_values.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <set>

#include "cli/engine_session.hpp"
#include "cli/global_options.hpp"
#include "engine/outcome_codes.hpp"

namespace gpukill::cli {

int run_completion_values(const std::vector<std::string>& args) {
    if (args.size() != 2 || (args[1] != "gpus" && args[1] != "pids")) return exit_code::ok;
    auto global = resolve_global_options({}, process_environment(), geteuid() == 0);
    if (!global) return exit_code::ok;
    auto opened = engine::Engine::open(engine_config(*global));
    if (!opened) return exit_code::ok;
    const Snapshot snapshot = (*opened)->snapshot().snapshot;
    std::set<long> values;
    if (args[1] == "gpus") {
        for (const Gpu& gpu : snapshot.gpus) values.insert(gpu.index);
    } else {
        for (const SnapshotProcess& process : snapshot.processes) {
            if (!process.observer()) values.insert(process.info.pid);
        }
    }
    for (long value : values) fmt::print("{}\n", value);
    return exit_code::ok;
}

}  // namespace gpukill::cli

// gpusim status --root DIR [--json]: what the simulated driver sees, for people and tests.

#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "state/size.hpp"
#include "state/usage.hpp"

namespace gpusim {

namespace {

using nlohmann::json;

constexpr int kStatusSchemaVersion = 1;

json gpu_json(unsigned index, const GpuSpec& spec, const GpuUsage& usage) {
    json allocations = json::array();
    for (const AllocationState& allocation : usage.allocations) {
        allocations.push_back({{"id", allocation.record.id},
                               {"pid", allocation.record.pid},
                               {"start_time_ticks", allocation.record.start_time_ticks},
                               {"memory_bytes", allocation.record.bytes},
                               {"util_percent", allocation.record.util_percent},
                               {"held", allocation.held},
                               {"allocating_process_alive", allocation.owner_running}});
    }
    json leaks = json::array();
    for (const LeakRecord& leak : usage.leaks) {
        leaks.push_back({{"id", leak.id}, {"memory_bytes", leak.bytes}});
    }
    return {{"index", index},
            {"name", spec.name},
            {"uuid", spec.uuid},
            {"pci_bus_id", spec.pci_bus_id},
            {"lost", spec.lost},
            {"memory_total_bytes", spec.memory_total_bytes},
            {"memory_reserved_bytes", spec.memory_reserved_bytes},
            {"memory_used_bytes", usage.used_bytes()},
            {"utilization_percent", gpu_utilization_percent(spec, usage)},
            {"allocations", std::move(allocations)},
            {"leaks", std::move(leaks)}};
}

void print_gpu_text(unsigned index, const GpuSpec& spec, const GpuUsage& usage) {
    fmt::print("GPU {}  {}  {}  {}{}\n", index, spec.name, spec.uuid, spec.pci_bus_id,
               spec.lost ? "  LOST" : "");
    fmt::print("  memory {} used of {} ({} reserved), utilization {}%\n",
               format_size(usage.used_bytes()), format_size(spec.memory_total_bytes),
               format_size(spec.memory_reserved_bytes), gpu_utilization_percent(spec, usage));
    for (const AllocationState& allocation : usage.allocations) {
        const char* holder = !allocation.held           ? "freed (no holder left)"
                             : allocation.owner_running ? "held by its allocating process"
                                                        : "held by survivors (allocator gone)";
        fmt::print("  allocation {}  pid {}  {}  util {}%  {}\n", allocation.record.id,
                   allocation.record.pid, format_size(allocation.record.bytes),
                   allocation.record.util_percent, holder);
    }
    for (const LeakRecord& leak : usage.leaks) {
        fmt::print("  leak {}  {}\n", leak.id, format_size(leak.bytes));
    }
}

}  // namespace

int cmd_status(const StatusOptions& options) {
    const Root root = root_at(options.root);
    auto config = load_config(root);
    if (!config) return report(config.error());

    json gpus = json::array();
    for (unsigned index = 0; index < config->gpus.size(); ++index) {
        auto usage = survey_gpu(root, index);
        if (!usage) return report(usage.error());
        if (options.json) {
            gpus.push_back(gpu_json(index, config->gpus[index], *usage));
        } else {
            print_gpu_text(index, config->gpus[index], *usage);
        }
    }
    if (options.json) {
        const json document{{"schema_version", kStatusSchemaVersion},
                            {"root", root.dir.string()},
                            {"driver_version", config->driver.version},
                            {"legacy_driver", config->driver.legacy},
                            {"gpus", std::move(gpus)}};
        fmt::print("{}\n", document.dump());
    }
    return kExitOk;
}

}  // namespace gpusim

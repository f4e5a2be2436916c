#include "engine/process_query.hpp"

#include <algorithm>

#include "discovery/gpu_selector.hpp"
#include "reclaim/match.hpp"

namespace gpukill::engine {

Result<unsigned> resolve_gpu(const Snapshot& snapshot, std::string_view selector) {
    auto index = resolve_gpu_selector(selector, snapshot.gpus);
    if (!index) return std::unexpected(as(ErrorCategory::not_found, index.error()));
    return *index;
}

Result<Snapshot> select_processes(const Snapshot& snapshot, const ProcessQuery& query) {
    reclaim::Selectors selectors = query.selectors;
    selectors.pid_arguments.clear();
    if (query.gpu) {
        auto index = resolve_gpu_selector(*query.gpu, snapshot.gpus);
        if (!index) return std::unexpected(as(ErrorCategory::not_found, index.error()));
        selectors.gpu = *index;
    }
    auto matcher = reclaim::compile_matcher(selectors, snapshot);
    if (!matcher) return std::unexpected(as(ErrorCategory::invalid_input, matcher.error()));
    Snapshot selected = snapshot;
    if (!selectors.has_match_selector()) return selected;
    std::erase_if(selected.processes, [&](const SnapshotProcess& process) {
        return !reclaim::matches(*matcher, process.info, &process);
    });
    return selected;
}

}  // namespace gpukill::engine

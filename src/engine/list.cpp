#include "engine/list.hpp"

#include <algorithm>

#include "discovery/gpu_selector.hpp"
#include "engine/plan_selectors.hpp"
#include "reclaim/match.hpp"

namespace gpukill::engine {

Result<unsigned> resolve_gpu(const Snapshot& snapshot, std::string_view selector) {
    auto index = resolve_gpu_selector(selector, snapshot.gpus);
    if (!index) return std::unexpected(as(ErrorCategory::not_found, index.error()));
    return *index;
}

Result<Snapshot> narrow(const Snapshot& snapshot, const ListRequest& request) {
    auto vendor = parse_vendor_filter(request.vendor);
    if (!vendor) return std::unexpected(as(ErrorCategory::invalid_input, vendor.error()));
    Snapshot narrowed = *vendor ? restrict_to_vendor(snapshot, **vendor) : snapshot;
    reclaim::Selectors selectors = plan_selectors(static_cast<const MatchSelectors&>(request));
    if (request.gpu) {
        // Among the vendor's GPUs, numbered as on the whole host.
        auto index = resolve_gpu(narrowed, *request.gpu);
        if (!index) return std::unexpected(index.error());
        narrowed = restrict_to_gpus(narrowed, {*index});
        selectors.gpu = *index;
    }
    if (!request.selects_processes()) return narrowed;
    auto matcher = reclaim::compile_matcher(selectors, narrowed);
    if (!matcher) return std::unexpected(as(ErrorCategory::invalid_input, matcher.error()));
    std::erase_if(narrowed.processes, [&](const SnapshotProcess& process) {
        return !reclaim::matches(*matcher, process.info, &process);
    });
    return narrowed;
}

Result<ListOutcome> list(Engine& engine, const ListRequest& request) {
    ListOutcome outcome = engine.snapshot(request.record_history);
    auto narrowed = narrow(outcome.snapshot, request);
    if (!narrowed) return std::unexpected(narrowed.error());
    outcome.snapshot = std::move(*narrowed);
    return outcome;
}

}  // namespace gpukill::engine

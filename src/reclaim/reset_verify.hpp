// Proving a reset worked: the GPU is enumerated again at the same PCI address, the
// driver does not call it lost, nothing holds it, and its memory is back to idle.
// Re-samples until every GPU passes or the bound runs out.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "model/reset_results.hpp"
#include "model/snapshot.hpp"
#include "reclaim/reset_plan.hpp"

namespace gpukill::reclaim {

// What an idle GPU may still show used: the driver's own bookkeeping, page rounding.
// max(64 MiB, 1% of the total); 64 MiB when the total is unknown.
std::uint64_t idle_memory_tolerance_bytes(std::optional<std::uint64_t> memory_total_bytes);

// One evaluation over one snapshot. Pure.
ResetCheck evaluate_reset(const ResetGpu& gpu, const Snapshot& now);

struct ResetVerifyOptions {
    double timeout_seconds = 10;
    double poll_interval_seconds = 0.1;
};

// Samples (the caller's discover(), with the device-file sweep: a holder by file only
// counts) at least once, then every poll interval until every GPU is ok or the timeout.
// A GPU's result is fixed when it is first ok (a job starting on it right after does
// not undo the reset); the others carry the last evaluation. In the order given.
std::vector<ResetCheck> verify_reset(const std::vector<ResetGpu>& gpus,
                                     const std::function<Snapshot()>& sample,
                                     const ResetVerifyOptions& options);

}  // namespace gpukill::reclaim

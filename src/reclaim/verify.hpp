// Proving the memory came back: re-sample the GPUs after the targets are gone
// until what they held is released, within a bound.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "model/kill_plan.hpp"
#include "model/kill_results.hpp"
#include "model/snapshot.hpp"

namespace gpukill::reclaim {

struct VerifyOptions {
    double timeout_seconds = 10;
    double poll_interval_seconds = 0.05;
    // Asked after every sample: true ends the verification with what was seen so far
    // (Ctrl-C during `gpukill kill`).
    std::function<bool()> interrupted;
};

// `sample` takes a fresh snapshot (the caller's discover()). Evaluates every GPU in
// plan.gpu_memory_used_before (those the targets held), sampling every
// poll_interval_seconds, and stops as soon as every GPU is released, or at the timeout
// (at least one sample is taken; none, and an empty result, when the targets held
// no GPU). A GPU's result is fixed when it is first
// released (memory taken again later by a new job does not undo it); the others carry
// the last evaluation. Results are in GPU order.
// `sample` may be a cheap snapshot without device-file holders (discover_gpus) when
// `full_sample` is given: GPUs still unreleased at the timeout are judged once more
// on a full snapshot (discover), because calling a GPU soft-locked needs to know that
// no process holds its device file.
std::vector<GpuRelease> verify_release(const KillPlan& plan, const std::vector<pid_t>& target_pids,
                                       const std::function<Snapshot()>& sample,
                                       const VerifyOptions& options,
                                       const std::function<Snapshot()>& full_sample = {});

// Drivers account memory in pages and keep small per-GPU bookkeeping of their own, so
// "came back" is judged with this much slack.
inline constexpr std::uint64_t kReleaseToleranceBytes = 1ULL << 20;  // 1 MiB

// One evaluation over one snapshot (pure; verify_release loops over it).
//   targets_still_holding: targets (same PID and, where the snapshot knows it, the same
//     start time: a reused PID is not a target) tied to the GPU in `now`.
//   released: no target holds the GPU, and
//     - when the plan's expected release and both used-memory readings are known: at
//       least the expected memory came back (reclaimed + tolerance >= expected);
//     - otherwise the bytes cannot be checked, and released means the targets let go of
//       the GPU (the driver frees a process's memory when its last handle closes), unless
//       the GPU is soft-locked.
//   soft_locked: used memory above the tolerance, no process at all holds the GPU (none
//     listed by the driver, none holding its device file), and the used memory has not
//     fallen to the level expected: before - expected when that is known; when it is not,
//     it has not fallen at all (still within the tolerance of before). Unknown readings
//     are never called soft-locked.
GpuRelease evaluate_release(unsigned gpu, const KillPlan& plan,
                            const std::vector<pid_t>& target_pids, const Snapshot& now);

}  // namespace gpukill::reclaim

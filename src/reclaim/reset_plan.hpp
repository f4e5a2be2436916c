// What `gpukill reset` will do, decided before anything happens: which GPUs, by which
// vendor path, what holds them, and whether the reset is refused, blocked by holders,
// preceded by reclaiming them (--force), or done straight away. Pure: built from a
// Snapshot and facts gathered beforehand (reset_facts.hpp); no system calls.
//
// The preflight mirrors what the vendors require:
//   - a reset path: NVIDIA through `nvidia-smi -r` (there is no public NVML reset), AMD
//     (amdgpu) through the kernel's debugfs `amdgpu_gpu_recover`; Intel and other drivers
//     have none gpukill can trigger (unbind and rebind the driver, or reboot);
//   - privilege: root or CAP_SYS_ADMIN, as both paths require;
//   - GPUs that reset together: pre-Ampere NVIDIA GPUs joined by NVLink (directly or
//     through an NVSwitch), and AMD GPUs of one XGMI hive, must all be in the request;
//   - no process may hold a GPU being reset (nvidia-smi refuses; amdgpu would pull the
//     memory from under them): with holders, refuse unless --force reclaims them first;
//   - MIG, persistence mode and a lost GPU are reported as notes: the vendor tool decides.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/gpu.hpp"
#include "model/reset_plan.hpp"
#include "model/snapshot.hpp"

namespace gpukill::reclaim {

// Checks, in order (the first that fails decides): each GPU has a reset path
// (unsupported; with --all such GPUs are skipped, and it is unsupported only when none
// is left); privilege; the request holds every GPU its GPUs reset together with
// (incomplete_group); holders (held, unless --force: reclaim_then_reset). An empty
// request (no GPU on the host) is a `reset` plan with nothing to do.
ResetPlan build_reset_plan(const Snapshot& snapshot, const ResetRequest& request,
                           const ResetFacts& facts);

// Every process of `snapshot` tied to any of `gpus`, by PID, with what it holds of them.
// Pure.
std::vector<ResetHolder> holders_of(const Snapshot& snapshot, const std::set<unsigned>& gpus);

// The GPUs `gpu` must be reset together with (itself included, ascending): the
// connected component over pre-Ampere NVLinks (a link to a non-GPU device such as an
// NVSwitch joins every GPU linked to it) and XGMI hives. Pure.
std::vector<unsigned> reset_group_of(const Snapshot& snapshot, const ResetFacts& facts,
                                     unsigned gpu);

}  // namespace gpukill::reclaim

// What `gpukill kill` will do, decided before anything is signalled: which
// processes, why each was chosen, and which were refused and why. Pure data;
// built by select.hpp from a Snapshot and the process table.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/process.hpp"

namespace gpukill::reclaim {

// Why a process is in the plan.
enum class TargetReason {
    named_pid,       // --pid P or `gpukill P`
    selector_match,  // matched --gpu/--filter/--user/--container/... (all of them)
    holds_same_gpu,  // a descendant of a target holding one of its GPUs (DataLoader worker)
    tree_member,     // --tree: a descendant of a target
    group_member,    // --group: in a target's process group
};
const char* to_string(TargetReason reason);

struct PlannedTarget {
    ProcessIdentity identity;  // bound again (pidfd + start time) before any signal
    std::string name;          // comm
    std::string user;
    std::optional<uid_t> uid;
    char state = '?';
    TargetReason reason = TargetReason::named_pid;
    std::string reason_detail;                       // e.g. "child of 4242 holding GPU 0"
    std::vector<unsigned> gpus;                      // GPUs it holds (driver list or device file)
    std::map<unsigned, std::uint64_t> memory_bytes;  // per GPU, where the driver says
};

// Why a process will not be signalled.
enum class RefusalKind {
    invalid_pid,       // 0, negative, above pid_max, not a number
    not_found,         // no such process
    init,              // PID 1
    self_or_ancestor,  // gpukill itself or a process it runs under
    kernel_thread,
    protected_process,  // on the protected list (name, user or PID)
    permission,         // another user's process and no privilege to signal it
    stale_identity,     // the PID now belongs to a different process (start time changed)
    holds_no_gpu,       // named, but neither it nor a descendant holds a GPU (no --any-process)
    // Matched every selector but --gpu N, whose GPU it only may use: it holds /dev/kfd and
    // nothing says which AMD GPU (GpuAttribution::any_amd_gpu). Never signalled by --gpu.
    gpu_unknown,
};
const char* to_string(RefusalKind kind);

struct Refusal {
    pid_t pid = 0;         // 0 when the argument was not a number at all
    std::string argument;  // what the user typed, for invalid_pid
    std::string name;      // comm, when known
    RefusalKind kind = RefusalKind::invalid_pid;
    std::string why;                // one line a person can act on
    bool explicitly_named = false;  // named with --pid: refusing it aborts the whole plan
};

struct KillPlan {
    std::vector<PlannedTarget> targets;  // sorted by PID, each once
    std::vector<Refusal> refusals;
    // A selector that can match many processes was used without --batch: the plan
    // is a preview and nothing may be signalled.
    bool needs_batch_confirmation = false;
    // The GPUs the targets hold, with used memory at planning time (for verification).
    std::map<unsigned, std::optional<std::uint64_t>> gpu_memory_used_before;
    // Per GPU: memory expected back when the targets are gone. Driver-listed memory of
    // targets, plus the GPU's unattributed memory when a target holds it only by device
    // file (its share is unknown). Empty when unknowable.
    std::map<unsigned, std::optional<std::uint64_t>> gpu_memory_expected_release;

    // Any refusal of an explicitly named PID: nothing at all is signalled.
    bool aborted() const;
};

}  // namespace gpukill::reclaim

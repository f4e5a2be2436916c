// One view over the two sources a KillPlan is built from: the snapshot (GPU holders and
// their ties to GPUs) and the host's process table (every process, for parents,
// children and process groups). Pure; internal to src/reclaim. Holds pointers into both
// inputs, which must outlive it.
#pragma once

#include <sys/types.h>

#include <unordered_map>
#include <vector>

#include "model/snapshot.hpp"
#include "reclaim/select.hpp"

namespace gpukill::reclaim {

class ProcessIndex {
  public:
    ProcessIndex(const Snapshot& snapshot, const ProcessTable& table);

    // What is known of a process: its table entry, else the snapshot's when complete.
    // Null when neither knows it.
    const ProcessInfo* info(pid_t pid) const;

    // The snapshot's entry for the same process as info(pid): null when the snapshot does
    // not list the PID, or lists an earlier process that had it (start times differ).
    const SnapshotProcess* holder(pid_t pid) const;

    // The snapshot and the table both know the PID with different start times: the
    // process the snapshot saw is gone and the PID was reused.
    bool reused(pid_t pid) const;

    // Direct children (by ppid) and members of a process group, each sorted by PID.
    const std::vector<pid_t>& children(pid_t pid) const;
    const std::vector<pid_t>& group(pid_t pgid) const;

    // The GPUs the process is known to hold in the snapshot, ascending; empty when it holds
    // none. An any_amd_gpu tie (/dev/kfd alone) is left out: a descendant joins a target's
    // kill for sharing its GPU only when it is known to.
    std::vector<unsigned> gpus(pid_t pid) const;

  private:
    std::unordered_map<pid_t, const ProcessInfo*> table_;
    std::unordered_map<pid_t, const SnapshotProcess*> snapshot_;
    std::unordered_map<pid_t, std::vector<pid_t>> children_;
    std::unordered_map<pid_t, std::vector<pid_t>> groups_;
};

}  // namespace gpukill::reclaim

// Process details kept across the snapshots of one session (`list --watch`, the agent,
// the monitor), keyed by identity (PID and start time), so a frame reads one stat file
// per GPU process instead of read_process's four files and a link.
//
// stat is read every time: it carries the identity, and everything in it can change
// without an event (parent on reparenting, group, session, state, the name). The rest
// (status's uid and NSpid, cmdline, cgroup, exe) is kept until
//   - the process connector says the process exec'd or changed its uid (`changed`), or
//   - a `full` read: the holder tracker's safety-sweep frames, which read everything again.
// What no event reports (a process moved to another cgroup, a cmdline rewritten in place
// with setproctitle) is therefore up to one full read late. Callers without event
// sources pass full = true every time: with no event to say a process exec'd, a cached
// detail could be wrong for as long as the session runs.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <map>
#include <set>
#include <vector>

#include "model/host_roots.hpp"
#include "model/process.hpp"

namespace gpukill {

class ProcessInfoCache {
  public:
    // The details of each of `pids` that can be read now (read_process's contract: those
    // gone are left out). Entries for PIDs not asked for are dropped.
    std::vector<ProcessInfo> read(const HostRoots& roots, const std::set<pid_t>& pids,
                                  const std::set<pid_t>& changed, bool full);

    std::size_t full_reads() const { return full_reads_; }  // read_process calls
    std::size_t stat_reads() const { return stat_reads_; }  // details served from the cache

  private:
    std::map<pid_t, ProcessInfo> known_;
    std::size_t full_reads_ = 0;
    std::size_t stat_reads_ = 0;
};

}  // namespace gpukill

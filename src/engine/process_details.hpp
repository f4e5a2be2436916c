// What an interface shows about one process beyond the snapshot: its CPU time and
// resident memory (the monitor's CPU% and host-memory columns), its environment, its
// cgroup, its chain of parents, and the rogue detector's evidence about it. Reads only:
// nothing here acts or records. Each call is bound to a process identity (PID and start
// time): a PID that now names another process is not_found, so one process's
// environment is never shown as another's.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "model/process.hpp"
#include "model/result.hpp"
#include "model/snapshot.hpp"

namespace gpukill::engine {

struct ProcessUsage {
    ProcessIdentity identity;
    std::uint64_t cpu_ticks = 0;  // user + system, in the snapshot's clock ticks
    std::uint64_t rss_bytes = 0;
};

// The usage of each of `pids` that can be read now; those gone are left out.
std::vector<ProcessUsage> process_usage(const Engine& engine, const std::vector<pid_t>& pids);

// The environment, NAME=value a line. Errors: not_found (gone, or the PID reused),
// permission (another user's process, without privilege).
Result<std::vector<std::string>> process_environment(const Engine& engine,
                                                     const ProcessIdentity& identity);

// The rogue detector's judgement of one process, as the monitor shows it.
struct RogueEvidence {
    std::string signal;  // "stratum_url", as docs/ROGUE.md names it
    int weight = 0;
    std::string detail;
};

struct RogueVerdict {
    int score = 0;
    std::string risk;  // low, medium, high, critical
    std::vector<RogueEvidence> evidence;
    bool allowed = false;  // an allow list exempts it
};

struct ProcessDetails {
    ProcessInfo info;
    std::vector<ProcessInfo> ancestors;  // the parent first, up to PID 1
    std::optional<std::string> cgroup;   // /proc/PID/cgroup as written
    std::string cgroup_problem;          // why not, when empty
    // The detector's judgement when the process holds a GPU in `snapshot` and scores at
    // or above the report threshold; rogue_note says what was found otherwise.
    std::optional<RogueVerdict> rogue;
    std::string rogue_note;
};

// `snapshot` is the one the interface shows (for the process's GPU holds). Errors:
// not_found (gone, or the PID reused).
Result<ProcessDetails> process_details(const Engine& engine, const ProcessIdentity& identity,
                                       const Snapshot& snapshot);

}  // namespace gpukill::engine

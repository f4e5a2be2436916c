// The guard's judgement: a pure function of the policy, one snapshot, the history of
// earlier samples, the time and the warnings already given. No system calls: the
// loop around it (guard run) samples, resolves Unix groups, scores rogue processes,
// acts on the decisions and saves the returned state.
//
// How each rule is judged (docs/GUARD.md has the user-facing version):
//   - Only processes whose details were read (info_complete) and that hold a GPU are
//     judged; kernel threads never.
//   - Protected processes (the policy's protected users, executables and PIDs, and the
//     reclaim engine's protected list) count towards no limit; a per-process rule they
//     break yields a `protected` decision, never an action.
//   - Aggregate limits (memory and process counts per user, group, GPU) pick the newest
//     processes first, until what is left is within the limit: the job that ran first
//     keeps running.
//   - Sustained rules (stuck, idle) need the condition at every sample for the rule's
//     duration, the snapshot itself being the newest sample, with no gap between
//     samples longer than max(2 x check_interval, 60 s).
//   - A terminate or kill rule warns first and acts when the process still breaks it
//     when the grace period has passed (at once with a grace period of 0). A process
//     that complies is forgotten: breaking the rule again starts a new warning.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "guard/guard_state.hpp"
#include "guard/history.hpp"
#include "guard/time_window.hpp"
#include "model/guard_decision.hpp"
#include "model/guard_policy.hpp"
#include "model/snapshot.hpp"
#include "reclaim/select.hpp"

namespace gpukill::guard {

// A process's identity as a map key: PID and start time.
using IdentityKey = std::pair<pid_t, std::uint64_t>;

struct RogueScore {
    double score = 0;
    std::string summary;  // the evidence, one line
};

// What places a process in a project beyond its user (policy.hpp, ProjectRule), read at
// the edge for the processes holding GPUs (engine/project_facts.hpp).
struct ProjectFacts {
    std::optional<std::string> kubernetes_namespace;  // of its pod, as the kubelet names it
    std::optional<std::string> slurm_account;  // of its job (cgroup), as slurmctld records it
};

struct EvaluationInput {
    const Policy& policy;
    const Snapshot& snapshot;
    const History& history;
    GuardClock clock;
    const GuardState& state;
    // The reclaim engine's protected list (built-in and CONFIG_DIR/protected.yaml).
    const reclaim::ProtectedList& reclaim_protected;
    // Members of the Unix groups the policy names by group (resolve_unix_groups).
    const std::map<std::string, std::set<std::string>>& unix_group_members;
    // Rogue-detection scores by process; a process without one scores nothing.
    const std::map<IdentityKey, RogueScore>& rogue_scores;
    // By process, for the policy's projects; a process without an entry has no facts
    // beyond its user and cgroup.
    std::map<IdentityKey, ProjectFacts> project_facts = {};
    // The processes that run a system program (reclaim/system_program.hpp), read for those
    // a protected program names (system_programs_for): only these are protected by
    // program, whether by gpukill's list or by the policy's protected executables.
    reclaim::SystemPrograms system_programs = {};
};

struct Evaluation {
    std::vector<Decision> decisions;  // by PID, then rule id
    GuardState state;                 // to pass to the next evaluation (and save)
};

Evaluation evaluate(const EvaluationInput& input);

// The longest time any sustained rule looks back, plus the gap allowance: what a
// loop must keep in its history.
std::chrono::seconds history_needed(const Policy& policy);

// The largest gap between two samples a sustained rule bridges.
std::chrono::seconds max_sample_gap(const Policy& policy);

}  // namespace gpukill::guard

// The guard policy: what an administrator allows on the GPUs and what happens to a
// process that breaks a rule. Plain data, read from guard.yaml by policy_yaml.hpp
// (schema: docs/GUARD.md) and judged against snapshots by evaluate.hpp.
//
// The loader resolves every default, so each rule here carries its own action and
// grace period, and every value is already valid (no negative limit, no hour 25, no
// contradiction): the evaluator never re-checks the file.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace gpukill::guard {

enum class Mode {
    off,      // guard run samples nothing and acts on nothing
    dry_run,  // guard run logs what it would do and does nothing else
    enforce,  // guard run warns, terminates and kills
};
const char* to_string(Mode mode);  // "off", "dry-run", "enforce"

enum class Action {
    warn,       // tell the user (audit, syslog, their terminals); never signal
    terminate,  // SIGTERM; SIGKILL when it survives terminate_timeout
    kill,       // SIGKILL at once
};
const char* to_string(Action action);

// What a broken rule leads to. A process that breaks a terminate or kill rule is
// warned first and acted on when it still breaks it grace_period later; with a grace
// period of 0 it is acted on at once.
struct Enforcement {
    Action action = Action::warn;
    std::chrono::seconds grace_period{300};
    friend bool operator==(const Enforcement&, const Enforcement&) = default;
};

// Where an entry is written in the policy file, 1-based; 0 when not from a file.
struct SourceMark {
    int line = 0;
    int column = 0;
};

// Limits on one user's (or one group's) processes, over every GPU together.
struct Limits {
    std::optional<std::uint64_t> memory_bytes;  // driver-reported memory, summed
    std::optional<unsigned> max_processes;      // processes holding a GPU
    bool empty() const { return !memory_bytes && !max_processes; }
    friend bool operator==(const Limits&, const Limits&) = default;
};

struct UserRule {
    std::string user;  // exact account name
    Limits limits;
    std::optional<std::set<unsigned>> allowed_gpus;  // empty optional: every GPU
    std::set<unsigned> blocked_gpus;
    Enforcement enforcement;
    SourceMark mark;
};

struct GroupRule {
    std::string name;
    // Listed members; empty optional: the Unix group of this name (resolved at the
    // edge with getgrnam and each user's primary group, never in the evaluator).
    std::optional<std::set<std::string>> members;
    Limits limits;  // aggregate: every member's processes together
    Enforcement enforcement;
    SourceMark mark;
};

struct GpuRule {
    unsigned index = 0;  // gpukill's global GPU index (as in `gpukill list`)
    std::optional<std::set<std::string>> allowed_users;
    // Each entry is an exact executable path (it holds a '/') or an exact process name
    // (comm or the executable's file name). Never a substring or a prefix.
    std::optional<std::set<std::string>> allowed_executables;
    // Memory kept for the allowed users (or, with no allowed_users, kept free): other
    // processes together may use at most total - reserved.
    std::optional<std::uint64_t> reserved_memory_bytes;
    std::optional<std::uint64_t> user_memory_limit_bytes;  // each user on this GPU
    bool exclusive = false;  // one user at a time: the one whose process came first
    Enforcement enforcement;
    SourceMark mark;
};

// A project as the cluster calls one. A process is counted in the first project, in
// file order, any of whose match lists it meets: its Kubernetes namespace (its pod, from
// its cgroup, named by the kubelet), its Slurm account (of the job its cgroup names, as
// slurmctld records it) or job (its cgroup), or a Unix group its user is in. The limits are for
// the project's processes together, like a group's; allowed_gpus keeps them to some GPUs.
struct ProjectMatch {
    std::set<std::string> kubernetes_namespaces;
    std::set<std::string> slurm_accounts;
    std::set<std::string> slurm_jobs;
    std::set<std::string> unix_groups;
    bool empty() const {
        return kubernetes_namespaces.empty() && slurm_accounts.empty() && slurm_jobs.empty() &&
               unix_groups.empty();
    }
};

struct ProjectRule {
    std::string name;
    ProjectMatch match;
    Limits limits;
    std::optional<std::set<unsigned>> allowed_gpus;
    Enforcement enforcement;
    SourceMark mark;
};

// A recurring stretch of local time with its own limits. Days are 0 = Monday ..
// 6 = Sunday; minutes count from local midnight. end_minute <= start_minute means the
// window runs past midnight into the next day (22:00-06:00).
struct TimeWindow {
    std::string name;
    std::set<int> days;  // the days the window starts on
    int start_minute = 0;
    int end_minute = 24 * 60;
    Limits limits;                        // every user, while the window is active
    std::map<std::string, Limits> users;  // one user, while the window is active
    Enforcement enforcement;
    SourceMark mark;
};

enum class RunawayKind {
    stuck,     // utilisation above X% for a duration with memory not decreasing
    idle,      // holding memory while (nearly) idle for a duration
    orphaned,  // re-parented after its parent died, matching a pattern
    rogue,     // rogue-detection score above a threshold
};
const char* to_string(RunawayKind kind);  // "stuck", "idle", "orphaned", "rogue"

struct RunawayRule {
    std::string name;  // unique among the rules
    RunawayKind kind = RunawayKind::stuck;
    unsigned utilization_above_percent = 95;   // stuck
    unsigned utilization_at_most_percent = 0;  // idle: "idle" is at most this
    std::chrono::seconds duration{300};        // stuck, idle: sustained for this long
    std::uint64_t memory_above_bytes = 0;      // idle: holding more than this
    std::optional<std::string> pattern;        // orphaned: a Pattern (model/pattern.hpp), searched
                                               // in the name and the command line
    double score_above = 0;                    // rogue
    Enforcement enforcement;
    SourceMark mark;
};

// Processes no rule ever touches: neither counted towards a limit nor acted on.
struct ProtectedSet {
    std::set<std::string> users;        // exact account names
    std::set<std::string> executables;  // exact path (holds '/') or exact name
    std::set<pid_t> pids;
};

struct Policy {
    Mode mode = Mode::dry_run;
    std::chrono::seconds check_interval{30};
    // How long a terminated process has after SIGTERM before SIGKILL.
    std::chrono::seconds terminate_timeout{10};
    // After SIGKILL, how long enforcement waits for the process to be gone.
    std::chrono::seconds kill_timeout{5};
    // After the targets are gone, how long enforcement waits for their memory to be back.
    std::chrono::seconds verify_timeout{10};
    Enforcement default_enforcement;  // top-level action and grace_period
    Limits defaults;                  // every user not limited otherwise
    Enforcement defaults_enforcement;
    std::vector<UserRule> users;
    std::vector<GroupRule> groups;
    std::vector<ProjectRule> projects;
    std::vector<GpuRule> gpus;
    std::vector<TimeWindow> windows;
    std::vector<RunawayRule> rules;
    ProtectedSet protected_processes;
};

// What `guard check` says a valid policy holds: "mode dry-run; 2 users, 2 groups, 1
// project, 2 GPU rules, 1 time window, 4 runaway rules" (every section counted).
std::string policy_contents(const Policy& policy);

}  // namespace gpukill::guard

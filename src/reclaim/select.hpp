// Building a KillPlan: a pure function of the snapshot, the host's process
// table, the user's selectors and the safety context. No system calls.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/kill_plan.hpp"
#include "model/process.hpp"
#include "model/result.hpp"
#include "model/snapshot.hpp"

namespace gpukill::reclaim {

// A --pid argument as typed. Valid: decimal digits only, naming 1..pid_max-1 (the kernel
// allocates PIDs below pid_max). Leading zeros are decimal ("007" is 7), as kill(1) and
// the shells read them. 0, negatives, "-1" (kill(-1) signals every process), numbers at
// or above pid_max, and anything with signs, spaces or other characters are refused
// (kill() with those would address a process group or every process). PID 1 parses: the
// plan refuses it as init, with a reason a person can read.
Result<pid_t> parse_target_pid(std::string_view argument, pid_t pid_max);

struct Selectors {
    std::vector<std::string> pid_arguments;  // --pid, as typed (validated here)
    std::optional<unsigned> gpu;             // resolved global GPU index
    std::optional<std::string>
        filter;                       // a Pattern (model/pattern.hpp), searched in name and cmdline
    std::optional<std::string> user;  // exact user name or numeric uid
    std::optional<std::string> container;  // container id (prefix of at least 4) or pod UID
    std::optional<std::string> slurm_job;  // Slurm job id, from the process's cgroup
    // The Kubernetes namespace and pod name, exactly (model/kubernetes_names.hpp's rules;
    // anything else is refused). A process whose pod is not known matches neither.
    std::optional<std::string> pod_namespace;
    std::optional<std::string> pod;
    // Patterns on the container's image ("nvcr.io/nvidia/pytorch:24.01-py3"), as the
    // container runtime names it. --image: in a container whose image matches;
    // --not-image: in a container whose image is known and does not match. A process in
    // no container, or whose image the runtime did not say, matches neither.
    std::optional<std::string> image;
    std::optional<std::string> not_image;
    std::optional<std::uint64_t> min_memory_bytes;  // driver-reported memory on any GPU
    bool orphaned = false;                          // re-parented after its parent died
    bool unlisted = false;  // holds a device file, absent from the driver list
    bool tree = false;      // add every descendant of each target
    bool group = false;     // add every member of each target's process group
    bool batch = false;     // confirm acting on a many-process selector
    // A named PID need not hold a GPU (--any-process). Without it, one that holds none
    // and has no descendant holding one is refused: a mistyped PID must not end an
    // unrelated process.
    bool any_process = false;

    // --gpu, --filter, --user, --container, --slurm-job, --namespace, --pod, --image,
    // --not-image, --min-memory, --orphaned, --unlisted.
    bool has_match_selector() const;
};

// What gpukill never signals. A program (a name or a path) is protected only where the
// process runs a system program (system_program.hpp): its name and command line are the
// user's to choose, the executable's file and its owner are not.
struct ProtectedList {
    std::set<std::string> names;             // exact executable file name, any owner
    std::set<std::string> executable_paths;  // exact /proc/PID/exe target, any owner
    // A program (name or path) protected only while one of these accounts runs it.
    std::map<std::string, std::set<std::string>> owned_programs;
    std::set<std::string> users;  // exact user names
    std::set<pid_t> pids;
};

// Processes (PID, start time) that run a system program (system_program.hpp): the only
// ones a protected name or path can match.
using SystemPrograms = std::set<std::pair<pid_t, std::uint64_t>>;

// Daemons that hold GPUs for everyone: display servers and the GPU stack's own
// services. Used when no protected list is configured.
ProtectedList default_protected_list();

struct SafetyContext {
    pid_t self = 0;
    std::set<pid_t> ancestors;       // every process gpukill runs under, up to PID 1
    std::set<pid_t> ancestor_pgids;  // their process groups: --group never takes those
    // PIDs read from procfs are this process's own (see procfs_shows_this_process).
    bool procfs_is_own_pid_namespace = true;
    uid_t euid = 0;
    bool can_signal_any_user = false;  // root or CAP_KILL
    pid_t pid_max = 4194304;
    ProtectedList protected_list;
    // Which processes run a system program, read for those the list names
    // (find_system_programs); a named program matches no other.
    SystemPrograms system_programs;
    // gpukill's own process group (0: unknown): --group never expands into it, since its
    // other members are gpukill's pipeline (`gpukill kill ... | tee log`).
    pid_t self_pgid = 0;
};

// The host's processes (not only GPU holders): needed for named PIDs that hold no
// GPU, and for descendants, trees and groups.
using ProcessTable = std::vector<ProcessInfo>;

// Candidates: the named PIDs when any are given, with the match selectors as conditions
// on them (a named PID they exclude is a named not_found refusal: the caller was wrong
// about it); otherwise every snapshot process (GPU holder) matching all match selectors.
// Each target then brings its descendants that hold one of its GPUs (holds_same_gpu,
// through intermediates that hold none), with --tree every descendant and with --group
// every member of its process group. Every candidate passes the safety rules
// (safety_check.hpp); a refused named PID aborts the plan, other refusals are reported
// and skipped. needs_batch_confirmation = has_match_selector() && !batch.
// Errors only for malformed selectors (a bad --filter regex, a --container shorter than
// 4 characters); every refusal of a process is in the plan.
Result<KillPlan> build_kill_plan(const Snapshot& snapshot, const ProcessTable& processes,
                                 const Selectors& selectors, const SafetyContext& safety);

}  // namespace gpukill::reclaim

// kill: a request -> a plan (previewable, with a stable identity) -> an outcome.
//
//   plan_kill(request)      select and check every target, bind each to its identity
//                           (PID + start time); audit `planned` and one `refused` per
//                           refusal. Nothing is signalled.
//   execute_kill(preview)   carry out exactly that plan through act_and_verify: each
//                           target is bound again by PID and start time, so a process
//                           that replaced a planned one under the same PID is never
//                           signalled (it is `gone`, "PID reused by another process");
//                           audit each step as it completes, each signal's intent
//                           before it is sent (engine/act_records.hpp).
//   kill(request)           both, unless the request is a dry run or needs --batch; with
//                           expected_plan_id, refuses (conflict) when the plan built now
//                           is not the one previewed: the stateless confirm of an API.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "engine/kill_report.hpp"
#include "engine/selectors.hpp"
#include "model/actor.hpp"
#include "model/kill_plan.hpp"
#include "model/kill_results.hpp"
#include "model/result.hpp"

namespace gpukill::engine {

// engine/request_tables.cpp describes each field for every door.
struct KillRequest : MatchSelectors {
    std::vector<std::string> pids;   // --pid, as typed (validated by the plan's gate)
    bool tree = false;               // add every descendant of each target
    bool group = false;              // add every member of each target's process group
    bool batch = false;              // confirm acting on a many-process selector
    bool any_process = false;        // a named PID need not hold a GPU
    std::string signal = "SIGTERM";  // a name (SIGTERM, TERM, 15): the first signal
    bool force = false;              // SIGKILL survivors after timeout_seconds
    double timeout_seconds = 5;      // 0..3600
    double verify_timeout_seconds = 10;
    bool dry_run = false;
    // Execute only if the plan built now has this identity (see plan_id()).
    std::optional<std::string> expected_plan_id;
    // Not a field: what was asked, in the interface's words (the command line; the API
    // call). It goes into every audit record's `command`.
    std::string command;
};

// While a plan is carried out: progress (for a terminal), an interruption test
// (Ctrl-C, SIGTERM, SIGHUP; a client that went away), and how the engine is reached.
// All optional.
struct ActControls {
    std::function<void(std::size_t left, double seconds_to_next_step)> progress;
    std::function<bool()> interrupted;
    // Called when the signals are done and verification begins (a terminal clears its
    // progress line).
    std::function<void()> executed;
    // Runs each piece of execute_kill that uses the engine: starting its audit trail,
    // appending each step's records, each reading of the GPUs. A caller that shares the
    // engine between threads (the agent) takes its lock here and calls execute_kill
    // without holding it, so the waits in between (for the targets to exit, between
    // verification samples: seconds to minutes) hold nothing. Unset: the work runs
    // directly, and the caller holds the engine for the whole call as for any other.
    std::function<void(const std::function<void()>& work)> engine_access;
};

struct KillOutcome {
    reclaim::KillPlan plan;
    // The plan's identity: the same targets (PID and start time), the same signals and
    // timeouts give the same id. 16 hex digits; an identity, not a secret.
    std::string plan_id;
    std::string run_id;   // the audit records' run_id (a preview's execution reuses it)
    std::string command;  // the request's, for the execution's records
    int first_signal = 0;
    std::string first_signal_name;
    bool force = false;
    double timeout_seconds = 5;
    double verify_timeout_seconds = 10;
    bool dry_run = false;
    bool preview = false;  // a many-process selector without batch: nothing signalled
    std::optional<std::vector<reclaim::TargetResult>> results;  // empty: not executed
    std::optional<std::vector<reclaim::GpuRelease>> releases;   // empty: not verified
    // Interrupted: before any signal (results empty) or while waiting (results hold
    // what was sent; the rest was not escalated).
    bool interrupted = false;
    // The documented outcome code (engine/outcome_codes.hpp, README: 0, 2, 3, 4, 6, 7, 8,
    // 1 or 130), the same number the command line exits with.
    int code = 0;
    std::optional<std::string> audit_problem;  // records went to syslog only, or failed

    // The document docs/JSON.md describes ("gpukill kill --json").
    KillReport report() const;
};

// Timeouts every call accepts: 0 to 3600 seconds.
bool valid_timeout_seconds(double seconds);

// The plan's identity (pure, engine/plan_identity.hpp): over the targets' PID and start
// time, the first signal, force and the timeout.
std::string plan_id(const reclaim::KillPlan& plan, int first_signal, bool force,
                    double timeout_seconds);

// Errors: invalid_input (a bad signal, timeout, selector or protected.yaml), not_found
// (no such GPU), unavailable (procfs or protected.yaml unreadable), unsupported (procfs
// of another PID namespace), conflict (expected_plan_id differs).
Result<KillOutcome> plan_kill(Engine& engine, const KillRequest& request, const Actor& actor);
KillOutcome execute_kill(Engine& engine, const KillOutcome& preview, const Actor& actor,
                         const ActControls& controls = {});
Result<KillOutcome> kill(Engine& engine, const KillRequest& request, const Actor& actor,
                         const ActControls& controls = {});

}  // namespace gpukill::engine

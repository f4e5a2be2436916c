// The guard as an engine object: what `gpukill guard run` loops over and what the agent
// will run in its own thread. Each cycle(now): sample the host, record the sample in
// the usage history, evaluate the policy with the history and the saved warnings, save
// the warnings (STATE_DIR/guard-state.json), then
//   - enforce: warn (audit guard_warning, syslog, the user's terminals) and act on what
//     is due through the same act_and_verify path as kill (audit guard_action and the
//     reclaim records), with the policy's terminate, kill and verify timeouts;
//   - dry-run: record what it would do (once per process), nothing else;
//   - off: nothing.
// What happens is reported to an event sink as one line each; the engine prints nothing.
// Time comes from the caller (`now`), never from the system clock, so a test can drive
// a week of cycles in a second.
//
// The policy is changed through the API: set_policy() (an agent's PUT) or
// reload_policy() (SIGHUP, or reload_if_changed() for a file that changed); a bad new
// version is reported and the previous policy stays in force.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/engine.hpp"
#include "model/actor.hpp"
#include "model/guard_decision.hpp"
#include "model/guard_policy.hpp"
#include "model/result.hpp"
#include "model/snapshot.hpp"

namespace gpukill::engine {

enum class GuardEventKind {
    started,          // the policy in force, at start
    note,             // something that limits the evaluation (said once per text)
    problem,          // something that failed (state or audit not written)
    policy_reloaded,  // a new policy is in force
    policy_kept,      // a new policy was refused; the previous one stays
    warned,           // a process was warned
    dry_run_action,   // dry-run: what would have been done
    acted,            // enforce: what was done, with the outcome
};

struct GuardEvent {
    GuardEventKind kind = GuardEventKind::note;
    std::string text;  // one line for people, without a timestamp
    // dry_run_action: the verdict that would have been carried out (for counters, which
    // must not parse the text).
    std::optional<guard::Verdict> verdict;
};

using GuardEvents = std::function<void(const GuardEvent&)>;

struct GuardSetup {
    // The policy file; empty: CONFIG_DIR/guard.yaml. Read at open, and again by
    // reload_policy() and reload_if_changed().
    std::optional<std::string> policy_path;
    std::string command;  // what was asked, for the audit records (argv for the CLI)
};

// Where the guard's policy is when no file is named: CONFIG_DIR/guard.yaml.
std::string default_policy_path(const EngineConfig& config);

// What enforcement did to one process in a cycle, for counters and status.
struct GuardAction {
    ProcessIdentity identity;
    guard::Verdict verdict = guard::Verdict::terminate;
    std::string outcome;  // the reclaim outcome ("terminated", "killed", ...), or "refused"
    std::optional<std::string> note;
};

class Guard {
  public:
    // Reads the policy, and checks gpukill's protected list (CONFIG_DIR/protected.yaml over
    // the built-in one) loads: enforcement never runs without it. The list is read again
    // every cycle, so an edit takes effect at the next one; a cycle that cannot read it
    // acts on nothing. Loads the saved warnings and, when the policy looks back further
    // than one cycle, the usage history up to `now`; what limits them is reported as notes
    // on start(). Errors: unavailable (no policy file, with how to write one; a file that
    // cannot be read), invalid_input (a malformed policy or protected.yaml, with its
    // line and column).
    static Result<std::unique_ptr<Guard>> open(Engine& engine, GuardSetup setup, Actor actor,
                                               GuardEvents events,
                                               std::chrono::system_clock::time_point now);
    ~Guard();
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

    void start();  // the started event, then the notes gathered so far
    void cycle(std::chrono::system_clock::time_point now);
    // The same over a snapshot the caller took (the agent samples the host once for its
    // metrics and its guard); it is recorded in the usage history here.
    void cycle(std::chrono::system_clock::time_point now, Snapshot snapshot);

    const guard::Policy& policy() const;
    const std::string& policy_path() const;
    void set_policy(guard::Policy policy);
    // Reads the policy file again. Errors keep the previous policy in force.
    Result<void> reload_policy();
    // reload_policy() when the file's modification time or size changed.
    void reload_if_changed();

    // The decisions of the last cycle, and the same as the documents of `guard test
    // --json` (each with its "outcome" in words), for an API's status call.
    const std::vector<guard::Decision>& last_decisions() const;
    nlohmann::ordered_json last_decisions_json() const;
    // What enforcement did in the last cycle (empty in dry-run and off), for counters.
    const std::vector<GuardAction>& last_actions() const;

    struct State;

  private:
    explicit Guard(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
};

}  // namespace gpukill::engine

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
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/audit_trail.hpp"
#include "engine/engine.hpp"
#include "engine/guard_enforce.hpp"
#include "guard/decision.hpp"
#include "guard/evaluate.hpp"
#include "guard/guard_state.hpp"
#include "guard/history.hpp"
#include "guard/policy.hpp"
#include "model/actor.hpp"
#include "reclaim/select.hpp"

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
    std::string policy_path;  // where the policy came from: reload_policy reads it again
    guard::Policy policy;
    // gpukill's protected list (protected.yaml over the built-in one); enforcement joins
    // the policy's own protected section to it (guard/protection.hpp).
    reclaim::ProtectedList protected_list;
    std::string command;  // what was asked, for the audit records (argv for the CLI)
};

class Guard {
  public:
    // Loads the saved warnings and, when the policy looks back further than one cycle,
    // the usage history up to `now`; what limits them is reported as notes on start().
    Guard(Engine& engine, GuardSetup setup, Actor actor, GuardEvents events,
          std::chrono::system_clock::time_point now);

    void start();  // the started event, then the notes gathered so far
    void cycle(std::chrono::system_clock::time_point now);
    // The same over a snapshot the caller took (the agent samples the host once for its
    // metrics and its guard); it is recorded in the usage history here.
    void cycle(std::chrono::system_clock::time_point now, Snapshot snapshot);

    const guard::Policy& policy() const { return setup_.policy; }
    void set_policy(guard::Policy policy);
    // Reads setup.policy_path again. Errors keep the previous policy in force.
    Result<void> reload_policy();
    // reload_policy() when the file's modification time or size changed.
    void reload_if_changed();

    // The decisions of the last cycle (for an API's status call).
    const std::vector<guard::Decision>& last_decisions() const { return last_decisions_; }
    // What enforcement did in the last cycle (empty in dry-run and off), for counters.
    const std::vector<EnforcedAction>& last_actions() const { return last_actions_; }

  private:
    void emit(GuardEventKind kind, std::string text,
              std::optional<guard::Verdict> verdict = std::nullopt);
    void append(const std::vector<nlohmann::ordered_json>& records);
    void warn(const guard::Decision& decision);
    void act(const Snapshot& snapshot, const std::vector<guard::DueAction>& due);

    Engine& engine_;
    GuardSetup setup_;
    GuardEvents events_;
    AuditTrail trail_;
    std::optional<std::pair<std::int64_t, std::int64_t>> version_;  // mtime, size
    guard::History history_;
    guard::GuardState state_;
    std::vector<guard::Decision> last_decisions_;
    std::vector<EnforcedAction> last_actions_;
    std::set<std::string> notes_said_;
    std::vector<std::string> startup_notes_;
    std::set<std::pair<pid_t, std::uint64_t>> dry_run_logged_;
};

}  // namespace gpukill::engine

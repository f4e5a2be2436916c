#include "agent/agent_core.hpp"

#include <fmt/format.h>

#include "engine/rogue_scan.hpp"
#include "model/json_optional.hpp"
#include "sys/heap_in_use.hpp"

namespace gpukill::agent {
namespace {

std::int64_t unix_ms_of(std::chrono::system_clock::time_point when) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(when.time_since_epoch()).count();
}

const char* event_kind_name(engine::GuardEventKind kind) {
    using enum engine::GuardEventKind;
    switch (kind) {
        case started:
            return "started";
        case note:
            return "note";
        case problem:
            return "problem";
        case policy_reloaded:
            return "policy_reloaded";
        case policy_kept:
            return "policy_kept";
        case warned:
            return "warned";
        case dry_run_action:
            return "dry_run_action";
        case acted:
            return "acted";
    }
    return "note";
}

// The GPU memory a process held in `snapshot`, over every GPU the driver listed it on.
std::uint64_t memory_held(const Snapshot& snapshot, const ProcessIdentity& identity) {
    std::uint64_t bytes = 0;
    for (const SnapshotProcess& process : snapshot.processes) {
        if (process.info.identity() != identity) continue;
        for (const ProcessGpuUse& use : process.gpus) bytes += use.memory_bytes.value_or(0);
    }
    return bytes;
}

}  // namespace

std::uint64_t processes_ended(const std::vector<reclaim::TargetResult>& results) {
    std::uint64_t ended = 0;
    for (const reclaim::TargetResult& result : results) {
        if (result.outcome == reclaim::Outcome::terminated ||
            result.outcome == reclaim::Outcome::killed) {
            ++ended;
        }
    }
    return ended;
}

std::uint64_t reclaimed_bytes(const std::vector<reclaim::GpuRelease>& releases) {
    std::uint64_t bytes = 0;
    for (const reclaim::GpuRelease& release : releases) {
        bytes += release.memory_reclaimed_bytes.value_or(0);
    }
    return bytes;
}

AgentCore::AgentCore(std::unique_ptr<engine::Engine> engine, MetricsOptions metrics, AgentLog log)
    : engine_(std::move(engine)), metrics_options_(metrics), log_(std::move(log)) {
    // Every interface's counters exist from the start, at 0: a rate over them is defined.
    for (const char* via : {"agent", "guard"}) {
        counters_.processes_ended[via] = 0;
        counters_.reclaimed_bytes[via] = 0;
    }
}

Result<void> AgentCore::start_guard(engine::GuardSetup setup, const Actor& actor) {
    std::lock_guard lock(engine_mutex_);
    auto opened = engine::Guard::open(
        *engine_, std::move(setup), actor,
        [this](const engine::GuardEvent& event) { on_guard_event(event); }, engine_->now());
    if (!opened) return std::unexpected(opened.error());
    guard_ = std::move(*opened);
    guard_policy_path_ = guard_->policy_path();
    guard_->start();
    // The actions that end processes exist from the start, at 0: an alert on their
    // increase() (deploy/prometheus) sees the first one, which a series born at 1 hides.
    std::lock_guard state(state_mutex_);
    for (const char* verdict : {"terminate", "kill"}) {
        for (const char* outcome : {"terminated", "killed"}) {
            counters_.guard_actions.try_emplace({verdict, outcome}, 0);
        }
    }
    return {};
}

void AgentCore::reload_policy() {
    std::lock_guard lock(engine_mutex_);
    if (guard_) (void)guard_->reload_policy();  // a refusal is an event
}

void AgentCore::reload_policy_if_changed() {
    std::lock_guard lock(engine_mutex_);
    if (guard_) guard_->reload_if_changed();
}

std::optional<std::chrono::seconds> AgentCore::guard_interval() {
    std::lock_guard lock(engine_mutex_);
    if (!guard_) return std::nullopt;
    return guard_->policy().check_interval;
}

void AgentCore::on_guard_event(const engine::GuardEvent& event) {
    if (log_) log_("guard: " + event.text);
    std::lock_guard lock(state_mutex_);
    if (event.kind == engine::GuardEventKind::policy_kept) ++counters_.policy_reload_failures;
    if (event.kind == engine::GuardEventKind::dry_run_action) {
        const std::string verdict = event.verdict ? guard::to_string(*event.verdict) : "unknown";
        ++counters_.guard_actions[{verdict, "dry_run"}];
    }
    events_.push_back(RecentEvent{.unix_ms = unix_ms_of(std::chrono::system_clock::now()),
                                  .kind = event_kind_name(event.kind),
                                  .text = event.text});
    while (events_.size() > kRecentEvents) events_.pop_front();
}

void AgentCore::count_guard_cycle(const Snapshot& snapshot) {
    // Called with the engine lock held: the guard's last cycle is stable.
    std::lock_guard lock(state_mutex_);
    for (const guard::Decision& decision : guard_->last_decisions()) {
        ++counters_.guard_decisions[guard::to_string(decision.verdict)];
    }
    for (const engine::GuardAction& done : guard_->last_actions()) {
        ++counters_.guard_actions[{guard::to_string(done.verdict), done.outcome}];
        if (done.outcome == "terminated" || done.outcome == "killed") {
            ++counters_.processes_ended["guard"];
            counters_.reclaimed_bytes["guard"] += memory_held(snapshot, done.identity);
        }
    }
}

void AgentCore::sample(std::chrono::system_clock::time_point now, bool run_guard, bool scan_rogue) {
    const auto started = std::chrono::steady_clock::now();
    Snapshot snapshot;
    std::optional<RogueCounts> rogue;
    std::optional<std::string> history_warning;
    std::optional<engine::Engine::HolderTracking> tracking;
    {
        std::lock_guard lock(engine_mutex_);
        snapshot = engine_->snapshot().snapshot;
        tracking = engine_->holder_tracking();
        // A guard in mode off records nothing: the history is recorded here then.
        if (guard_ && run_guard && guard_->policy().mode != guard::Mode::off) {
            guard_->cycle(now, snapshot);
            last_guard_cycle_unix_ms_ = unix_ms_of(now);
            count_guard_cycle(snapshot);
        } else {
            history_warning = engine_->record_history(snapshot);
        }
        if (scan_rogue) {
            RogueCounts counts{.scanned = true, .findings_by_risk = {}};
            auto counted = engine::count_rogue_findings(*engine_, snapshot);
            if (counted) {
                counts.findings_by_risk = std::move(*counted);
                rogue = std::move(counts);
            } else if (log_) {
                log_("rogue scan not run: " + counted.error().what);
            }
        }
    }
    if (history_warning && log_) log_(*history_warning);
    if (tracking && !holder_tracking_ && log_) {
        // Once, when the engine first tried (its second sample): without the tracker the
        // agent still works, but sweeps every process's fds each sample.
        log_(tracking->tracking
                 ? "holder tracking: on (fanotify and the process connector report opens, "
                   "forks and exits)"
                 : "holder tracking: off, every sample sweeps /proc: " + tracking->why_not);
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    // Before the lock the HTTP workers count their responses under: mallinfo2 takes
    // every malloc arena's lock in turn.
    const std::uint64_t heap_bytes = heap_bytes_in_use();

    std::lock_guard lock(state_mutex_);
    ++counters_.samples;
    if (rogue) rogue_ = std::move(*rogue);
    if (tracking) holder_tracking_ = std::move(tracking);
    MetricsInputs inputs{.snapshot = &snapshot,
                         .counters = &counters_,
                         .rogue = rogue_,
                         .last_sample_seconds = seconds,
                         .heap_bytes = heap_bytes,
                         .guard_enabled = guard_ != nullptr,
                         .holder_tracking = holder_tracking_,
                         .version = GPUKILL_VERSION};
    MetricsOptions options = metrics_options_;
    options.openmetrics = false;
    text_ = std::make_shared<const std::string>(render_metrics(inputs, options));
    options.openmetrics = true;
    openmetrics_ = std::make_shared<const std::string>(render_metrics(inputs, options));
}

bool AgentCore::ready() const {
    std::lock_guard lock(state_mutex_);
    return text_ != nullptr;
}

std::shared_ptr<const std::string> AgentCore::metrics(bool openmetrics) const {
    std::lock_guard lock(state_mutex_);
    return openmetrics ? openmetrics_ : text_;
}

engine::KillOutcome AgentCore::execute_kill(const engine::KillOutcome& planned,
                                            const Actor& actor) {
    // engine_ is set once, in the constructor: reading the pointer needs no lock; what it
    // points to is reached only through engine_access.
    return engine::execute_kill(*engine_, planned, actor,
                                {.engine_access = [this](const std::function<void()>& work) {
                                    std::lock_guard lock(engine_mutex_);
                                    work();
                                }});
}

void AgentCore::count_kill(const engine::KillOutcome& outcome) {
    std::lock_guard lock(state_mutex_);
    if (outcome.results) counters_.processes_ended["agent"] += processes_ended(*outcome.results);
    if (outcome.releases) counters_.reclaimed_bytes["agent"] += reclaimed_bytes(*outcome.releases);
}

void AgentCore::count_reset(const engine::ResetOutcome& outcome) {
    std::lock_guard lock(state_mutex_);
    if (outcome.reclaim_results) {
        counters_.processes_ended["agent"] += processes_ended(*outcome.reclaim_results);
    }
}

void AgentCore::count_response(int status) {
    std::lock_guard lock(state_mutex_);
    ++counters_.http_requests[status];
}

std::optional<std::string> AgentCore::policy_path() const {
    // Read without the engine lock: the path never changes after start_guard.
    if (!guard_) return std::nullopt;
    return guard_policy_path_;
}

nlohmann::ordered_json AgentCore::guard_status() {
    using json = nlohmann::ordered_json;
    json decisions = json::array();
    json status{{"schema_version", 1}, {"enabled", false}};
    {
        std::lock_guard lock(engine_mutex_);
        if (guard_) {
            const guard::Policy& policy = guard_->policy();
            decisions = guard_->last_decisions_json();
            status["enabled"] = true;
            status["policy"] = guard_policy_path_;
            status["mode"] = guard::to_string(policy.mode);
            status["check_interval_seconds"] = policy.check_interval.count();
            status["last_cycle_unix_ms"] = or_null(last_guard_cycle_unix_ms_);
        } else {
            status["policy"] = nullptr;
            status["mode"] = nullptr;
            status["check_interval_seconds"] = nullptr;
            status["last_cycle_unix_ms"] = nullptr;
        }
    }
    status["decisions"] = std::move(decisions);
    json events = json::array();
    std::lock_guard lock(state_mutex_);
    for (const RecentEvent& event : events_) {
        events.push_back(
            json{{"unix_ms", event.unix_ms}, {"kind", event.kind}, {"text", event.text}});
    }
    status["recent_events"] = std::move(events);
    return status;
}

}  // namespace gpukill::agent

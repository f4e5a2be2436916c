// What the agent's sampling loop and its HTTP workers share: the one Engine (not
// thread-safe, so every call goes through with_engine, one at a time; a kill's waits are
// the exception, run outside the lock by execute_kill), the guard running on it, the
// counters, the recent guard events, and the last sample's /metrics text.
//
// /metrics is rendered once per sample, in both formats, and served from there: a
// scrape never waits for the engine (a kill in progress, a slow sweep), and costs the
// same whatever the scrape rate.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/metrics.hpp"
#include "engine/engine.hpp"
#include "engine/guard.hpp"
#include "engine/kill.hpp"
#include "engine/reset.hpp"

namespace gpukill::agent {

// One line for the log (stderr: journald stamps it).
using AgentLog = std::function<void(const std::string& line)>;

struct RecentEvent {
    std::int64_t unix_ms = 0;
    std::string kind;  // "warned", "acted", "policy_reloaded", ...
    std::string text;
};

class AgentCore {
  public:
    AgentCore(std::unique_ptr<engine::Engine> engine, MetricsOptions metrics, AgentLog log);

    // One line to the agent's log.
    void log(const std::string& line) const {
        if (log_) log_(line);
    }

    // Every engine call, serialised.
    template <class F>
    decltype(auto) with_engine(F&& call) {
        std::lock_guard lock(engine_mutex_);
        return call(*engine_);
    }

    // Carries out a planned kill (engine::execute_kill) taking the engine lock only for
    // what uses the engine: its audit records and each reading of the GPUs. The waits for
    // the targets to exit and between verification samples hold nothing, so /v1/snapshot,
    // the samples (and with them /metrics) and the watchdog go on while a kill waits its
    // timeout. Kills from two requests may then overlap; each acts only on its own
    // targets, bound by PID and start time.
    engine::KillOutcome execute_kill(const engine::KillOutcome& planned, const Actor& actor);

    // Runs `during` holding the engine with every driver session let go (a local client
    // resets a GPU: local_channel_server.hpp). Samples are skipped meanwhile
    // (driver_released), and other engine calls wait for it.
    template <class F>
    void without_driver_session(F&& during) {
        std::lock_guard lock(engine_mutex_);
        released_ = true;
        engine_->without_driver_sessions(std::forward<F>(during));
        released_ = false;
    }
    bool driver_released() const { return released_; }

    // The guard over this engine, when a policy was given; before serving.
    // Errors as engine::Guard::open's: the agent does not start without its policy.
    Result<void> start_guard(engine::GuardSetup setup, const Actor& actor);
    bool guard_enabled() const { return guard_ != nullptr; }
    // SIGHUP or a changed file: the policy read again (a bad one keeps the old).
    void reload_policy();
    void reload_policy_if_changed();
    std::optional<std::string> policy_path() const;
    // The guard's check interval, when there is a guard.
    std::optional<std::chrono::seconds> guard_interval();

    // One sample of the host at `now`: discovered, recorded (history; the guard's cycle
    // when `run_guard`), rogue findings counted when `scan_rogue`, /metrics rendered.
    void sample(std::chrono::system_clock::time_point now, bool run_guard, bool scan_rogue);
    bool ready() const;  // a first sample was published

    // The last sample's exposition in the format asked for.
    std::shared_ptr<const std::string> metrics(bool openmetrics) const;

    // Counting what the API did.
    void count_kill(const engine::KillOutcome& outcome);
    void count_reset(const engine::ResetOutcome& outcome);
    void count_response(int status);

    // GET /v1/guard: the policy, its mode, the last cycle's decisions, recent events.
    nlohmann::ordered_json guard_status();

  private:
    void on_guard_event(const engine::GuardEvent& event);
    void count_guard_cycle(const Snapshot& snapshot);

    std::mutex engine_mutex_;            // the engine and the guard
    std::atomic<bool> released_{false};  // without_driver_session is running
    std::unique_ptr<engine::Engine> engine_;
    std::unique_ptr<engine::Guard> guard_;
    std::string guard_policy_path_;
    std::optional<std::int64_t> last_guard_cycle_unix_ms_;

    mutable std::mutex state_mutex_;  // everything below
    MetricsOptions metrics_options_;
    AgentLog log_;
    AgentCounters counters_;
    RogueCounts rogue_;
    // Known from the second sample on.
    std::optional<engine::Engine::HolderTracking> holder_tracking_;
    std::deque<RecentEvent> events_;  // the last kRecentEvents
    std::shared_ptr<const std::string> text_;
    std::shared_ptr<const std::string> openmetrics_;
};

inline constexpr std::size_t kRecentEvents = 100;

// Processes that ended after a signal (terminated or killed), and the GPU memory that
// came back, in a kill's results.
std::uint64_t processes_ended(const std::vector<reclaim::TargetResult>& results);
std::uint64_t reclaimed_bytes(const std::vector<reclaim::GpuRelease>& releases);

}  // namespace gpukill::agent

// `gpukill agent`'s life: listen, sample the host every interval (usage history,
// /metrics), run the guard policy at its check interval, count rogue findings every
// rogue interval; reload the policy on SIGHUP and when its file changes (inotify; a bad
// new policy is reported and the old one stays); stop gracefully on SIGTERM or SIGINT
// (requests in progress finish). Tells systemd when it is ready, pets its watchdog and
// says when it stops (sd_notify; nothing happens outside systemd). One log line per
// event, without a timestamp (journald adds it).
#pragma once

#include <memory>
#include <optional>

#include "agent/agent_core.hpp"
#include "agent/http_server.hpp"
#include "agent/metrics.hpp"
#include "engine/engine.hpp"
#include "engine/guard.hpp"
#include "model/result.hpp"

namespace gpukill::agent {

struct AgentOptions {
    ServerSettings server;
    double interval_seconds = 5;         // between samples: 0.001 .. 86400
    double rogue_interval_seconds = 60;  // between rogue scans; 0: none
    MetricsOptions metrics;
    std::optional<engine::GuardSetup> guard;  // none: no policy enforced
    Actor guard_actor;                        // the guard's records: {guard, the account}
};

// Runs until SIGTERM or SIGINT (then an empty result). The start line, once serving
// and sampled, is "listening on http[s]://HOST:PORT". Errors: the listener's
// (http_server.hpp) and an interval out of range (invalid_input).
Result<void> run_agent(std::unique_ptr<engine::Engine> engine, AgentOptions options, AgentLog log);

}  // namespace gpukill::agent

// One fleet command over many hosts. A read (list, audit, check, ...) is one call per
// host. An action (kill, reset) is two phases: plan on every host (`--dry-run`, which
// gives each host's plan_id), then act in parallel on the hosts that planned, passing
// each its own plan_id back, so a host whose processes changed in between refuses
// (conflict) instead of acting on a plan nobody saw. Nothing is acted on when the plan
// needs --batch (a preview), when only the plan was asked for, or when more hosts
// failed to plan than --max-failures allows.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fleet/fan_out.hpp"
#include "fleet/transport.hpp"

namespace gpukill::fleet {

struct FleetRequest {
    std::string command;  // "list", "kill", ...: what the document says ran
    RemoteCall call;      // the read, or an action's plan
    // An action's second phase: the call that acts on the plan with this id. Empty for
    // a read, or when only the plan was asked for (--dry-run).
    std::function<RemoteCall(const std::string& plan_id)> execute;
    std::optional<std::size_t> max_failures;  // more hosts failing to plan: act on none
    FanOutControls controls;
};

struct HostResult {
    std::string host;
    HostReply reply;  // the act's reply when it acted, else the plan's (or the read's)
    bool acted = false;
};

struct FleetSummary {
    std::size_t hosts = 0, succeeded = 0, failed = 0, unreachable = 0, not_run = 0;
};

struct FleetResult {
    std::string command;
    std::string transport;
    std::vector<HostResult> hosts;
    bool preview_only = false;        // a plan that needs --batch: nothing acted on
    std::optional<std::string> stop;  // why the act phase did not run, when it was due
    FleetSummary summary;
    int exit_code = 0;  // the worst host's (the largest), as pdsh -S
};

FleetResult run_fleet(Transport& transport, const std::vector<std::string>& hosts,
                      const FleetRequest& request);

// Counted from the hosts' statuses (incompatible counts as unreachable).
FleetSummary summarise(const std::vector<HostResult>& hosts);

}  // namespace gpukill::fleet

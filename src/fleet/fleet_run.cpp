#include "fleet/fleet_run.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace gpukill::fleet {
namespace {

bool is_preview(const HostReply& reply) {
    if (!reply.result.is_object()) return false;
    const auto it = reply.result.find("preview");
    return it != reply.result.end() && it->is_boolean() && it->get<bool>();
}

std::optional<std::string> plan_id_of(const HostReply& reply) {
    if (!reply.result.is_object()) return std::nullopt;
    auto it = reply.result.find("plan_id");
    if (it == reply.result.end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
}

}  // namespace

FleetSummary summarise(const std::vector<HostResult>& hosts) {
    FleetSummary summary;
    summary.hosts = hosts.size();
    for (const HostResult& host : hosts) {
        switch (host.reply.status) {
            case HostStatus::ok:
                ++summary.succeeded;
                break;
            case HostStatus::failed:
                ++summary.failed;
                break;
            case HostStatus::unreachable:
            case HostStatus::incompatible:
                ++summary.unreachable;
                break;
            case HostStatus::not_run:
                ++summary.not_run;
                break;
        }
    }
    return summary;
}

FleetResult run_fleet(Transport& transport, const std::vector<std::string>& hosts,
                      const FleetRequest& request) {
    FleetResult result;
    result.command = request.command;
    result.transport = transport.name();
    std::vector<HostReply> first = fan_out(
        hosts.size(), [&](std::size_t i) { return transport.call(hosts[i], request.call); },
        request.controls);
    for (std::size_t i = 0; i < hosts.size(); ++i) {
        result.hosts.push_back(HostResult{hosts[i], std::move(first[i]), false});
    }

    if (request.execute) {
        const std::size_t failures = static_cast<std::size_t>(
            std::count_if(result.hosts.begin(), result.hosts.end(),
                          [](const HostResult& h) { return h.reply.status != HostStatus::ok; }));
        const bool preview = std::any_of(result.hosts.begin(), result.hosts.end(),
                                         [](const HostResult& h) { return is_preview(h.reply); });
        const bool interrupted = request.controls.interrupted && request.controls.interrupted();
        if (preview) {
            result.preview_only = true;
            for (HostResult& host : result.hosts) {
                if (is_preview(host.reply))
                    host.reply.exit_code = std::max(host.reply.exit_code, 2);
            }
        } else if (interrupted) {
            result.stop = "interrupted after planning: nothing was acted on";
        } else if (request.max_failures && failures > *request.max_failures) {
            result.stop = fmt::format(
                "{} host{} failed to plan, more than --max-failures {}: nothing was acted on",
                failures, failures == 1 ? "" : "s", *request.max_failures);
        } else if (request.controls.fail_fast && failures > 0) {
            result.stop = "a host failed to plan (--fail-fast): nothing was acted on";
        } else {
            std::vector<std::size_t> ready;
            for (std::size_t i = 0; i < result.hosts.size(); ++i) {
                if (result.hosts[i].reply.status == HostStatus::ok &&
                    plan_id_of(result.hosts[i].reply)) {
                    ready.push_back(i);
                }
            }
            std::vector<HostReply> acted = fan_out(
                ready.size(),
                [&](std::size_t k) {
                    const HostResult& planned = result.hosts[ready[k]];
                    // A large fleet acts minutes after it planned: where a plan id
                    // expires, the host shows the plan again first. The same plan has the
                    // same id; a changed one makes the act a conflict, nothing done.
                    if (transport.plans_expire()) {
                        (void)transport.call(planned.host, request.call);
                    }
                    return transport.call(planned.host,
                                          request.execute(*plan_id_of(planned.reply)));
                },
                request.controls);
            for (std::size_t k = 0; k < ready.size(); ++k) {
                HostResult& host = result.hosts[ready[k]];
                if (acted[k].status == HostStatus::not_run) {
                    acted[k].error = acted[k].error.value_or("not started") + " (planned only)";
                }
                host.reply = std::move(acted[k]);
                host.acted = true;
            }
        }
        if (result.stop) {
            result.exit_code = std::max(result.exit_code, 1);
        }
    }
    result.summary = summarise(result.hosts);
    for (const HostResult& host : result.hosts) {
        result.exit_code = std::max(result.exit_code, host.reply.exit_code);
    }
    return result;
}

}  // namespace gpukill::fleet

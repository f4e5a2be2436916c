#include "fleet/fleet_report.hpp"

#include <fmt/format.h>

#include <map>

#include "fleet/node_set.hpp"
#include "model/human_format.hpp"

namespace gpukill::fleet {
namespace {

std::string hosts_with(const FleetResult& result, HostStatus a, HostStatus b) {
    std::vector<std::string> names;
    for (const HostResult& host : result.hosts) {
        if (host.reply.status == a || host.reply.status == b) names.push_back(host.host);
    }
    return names.empty() ? "" : " (" + printable(fold_node_set(names)) + ")";
}

}  // namespace

nlohmann::ordered_json fleet_json(const FleetResult& result) {
    nlohmann::ordered_json hosts = nlohmann::ordered_json::array();
    for (const HostResult& host : result.hosts) {
        nlohmann::ordered_json entry;
        entry["host"] = host.host;
        entry["ok"] = host.reply.status == HostStatus::ok;
        entry["status"] = to_string(host.reply.status);
        entry["exit_code"] = host.reply.exit_code;
        entry["error"] = host.reply.error ? nlohmann::ordered_json(*host.reply.error)
                                          : nlohmann::ordered_json(nullptr);
        entry["acted"] = host.acted;
        entry["seconds"] = host.reply.seconds;
        entry["result"] = host.reply.result;
        hosts.push_back(std::move(entry));
    }
    nlohmann::ordered_json document;
    document["schema_version"] = 1;
    document["command"] = result.command;
    document["transport"] = result.transport;
    document["hosts"] = std::move(hosts);
    document["summary"] = {{"hosts", result.summary.hosts},
                           {"succeeded", result.summary.succeeded},
                           {"failed", result.summary.failed},
                           {"unreachable", result.summary.unreachable},
                           {"not_run", result.summary.not_run}};
    document["preview_only"] = result.preview_only;
    document["stopped"] =
        result.stop ? nlohmann::ordered_json(*result.stop) : nlohmann::ordered_json(nullptr);
    document["exit_code"] = result.exit_code;
    return document;
}

std::string render_sections(const std::vector<HostSection>& sections, bool gather) {
    const std::string rule = "----------------\n";
    std::string out;
    if (!gather) {
        for (const HostSection& section : sections) {
            out += rule + printable(section.host) + "\n" + rule + section.text;
        }
        return out;
    }
    // Distinct texts in the order their first host came.
    std::vector<std::string> order;
    std::map<std::string, std::vector<std::string>> hosts_by_text;
    for (const HostSection& section : sections) {
        auto& hosts = hosts_by_text[section.text];
        if (hosts.empty()) order.push_back(section.text);
        hosts.push_back(section.host);
    }
    for (const std::string& text : order) {
        const std::vector<std::string>& hosts = hosts_by_text[text];
        out += rule + printable(fold_node_set(hosts)) +
               (hosts.size() > 1 ? fmt::format(" ({})", hosts.size()) : "") + "\n" + rule + text;
    }
    return out;
}

std::string summary_text(const FleetResult& result) {
    const FleetSummary& s = result.summary;
    std::string text =
        fmt::format("fleet {}: {} host{}: {} succeeded, {} failed{}, {} unreachable{}",
                    result.command, s.hosts, s.hosts == 1 ? "" : "s", s.succeeded, s.failed,
                    hosts_with(result, HostStatus::failed, HostStatus::failed), s.unreachable,
                    hosts_with(result, HostStatus::unreachable, HostStatus::incompatible));
    if (s.not_run > 0) {
        text += fmt::format(", {} not run{}", s.not_run,
                            hosts_with(result, HostStatus::not_run, HostStatus::not_run));
    }
    text += "\n";
    if (result.preview_only) {
        text += "preview only: nothing was signalled; add --batch to act on every host\n";
    }
    if (result.stop) text += *result.stop + "\n";
    return text;
}

}  // namespace gpukill::fleet

#include "guard/guard_records.hpp"

#include "model/json_optional.hpp"
#include "model/snapshot_json.hpp"

namespace gpukill::guard {
namespace {

using json = nlohmann::ordered_json;

// The process goes in its own object: the envelope's user and uid are who ran gpukill.
void add_process(json& record, const Decision& decision) {
    record["process"] = json{
        {"pid", decision.identity.pid},
        {"start_time_ticks", decision.identity.start_time_ticks},
        {"name", decision.name},
        {"user", decision.user.empty() ? json(nullptr) : json(decision.user)},
        {"uid", or_null(decision.uid)},
        {"gpus", decision.gpus},
    };
}

}  // namespace

json guard_warning_record(const audit::Invocation& who, Mode mode, const Decision& decision,
                          const std::vector<std::string>& delivered_to,
                          std::chrono::system_clock::time_point when) {
    json record = audit::audit_envelope("guard_warning", who, when);
    record["mode"] = to_string(mode);
    add_process(record, decision);
    record["rule"] = decision.rule_id;
    record["rule_action"] = to_string(decision.enforcement.action);
    record["why"] = decision.why;
    record["grace_period_seconds"] = decision.enforcement.grace_period.count();
    record["acts_at"] = decision.acts_at_unix_ms
                            ? json(format_utc_timestamp(*decision.acts_at_unix_ms))
                            : json(nullptr);
    record["delivered_to"] = delivered_to;
    return record;
}

json guard_action_record(const audit::Invocation& who, Mode mode, Verdict verdict,
                         const std::vector<const Decision*>& because,
                         const std::optional<std::string>& outcome,
                         const std::optional<std::string>& note,
                         std::chrono::system_clock::time_point when) {
    json record = audit::audit_envelope("guard_action", who, when);
    record["mode"] = to_string(mode);
    if (!because.empty()) add_process(record, *because.front());
    record["action"] = to_string(verdict);
    json rules = json::array();
    for (const Decision* decision : because) {
        rules.push_back(json{{"rule", decision->rule_id}, {"why", decision->why}});
    }
    record["rules"] = rules;
    record["outcome"] = or_null(outcome);
    record["note"] = or_null(note);
    return record;
}

json guard_policy_changed_record(const audit::Invocation& who, const std::string& path,
                                 const std::string& change, const std::optional<std::string>& from,
                                 std::chrono::system_clock::time_point when) {
    json record = audit::audit_envelope("guard_policy_changed", who, when);
    record["path"] = path;
    record["change"] = change;
    record["from"] = or_null(from);
    return record;
}

}  // namespace gpukill::guard

#include "audit/reclaim_records.hpp"

#include "model/json_optional.hpp"

namespace gpukill::audit {
namespace {

using json = nlohmann::ordered_json;

json gpu_memory_json(const std::map<unsigned, std::optional<std::uint64_t>>& used_before,
                     const std::map<unsigned, std::optional<std::uint64_t>>& expected) {
    std::map<unsigned, json> gpus;
    for (const auto& [index, bytes] : used_before) {
        gpus[index]["index"] = index;
        gpus[index]["memory_used_before_bytes"] = or_null(bytes);
    }
    for (const auto& [index, bytes] : expected) {
        gpus[index]["index"] = index;
        gpus[index]["memory_expected_release_bytes"] = or_null(bytes);
    }
    // Both fields on every entry, null where one map lacks the GPU: a fixed shape.
    json list = json::array();
    for (auto& [index, gpu] : gpus) {
        if (!gpu.contains("memory_used_before_bytes")) gpu["memory_used_before_bytes"] = nullptr;
        if (!gpu.contains("memory_expected_release_bytes")) {
            gpu["memory_expected_release_bytes"] = nullptr;
        }
        list.push_back(std::move(gpu));
    }
    return list;
}

json signals_json(const reclaim::TargetResult& result) {
    json signals = json::array();
    for (const std::string& signal : result.signals_sent) signals.push_back(signal);
    return signals;
}

}  // namespace

json target_json(const reclaim::PlannedTarget& target) {
    json gpus = json::array();
    for (unsigned index : target.gpus) {
        auto memory = target.memory_bytes.find(index);
        gpus.push_back(
            {{"index", index},
             {"memory_bytes",
              memory == target.memory_bytes.end() ? json(nullptr) : json(memory->second)}});
    }
    return json{
        {"pid", target.identity.pid},
        {"start_time_ticks", target.identity.start_time_ticks},
        {"name", target.name},
        {"user", target.user},
        {"uid", or_null(target.uid)},
        {"state", target.state == '?' ? json(nullptr) : json(std::string(1, target.state))},
        {"reason", reclaim::to_string(target.reason)},
        {"reason_detail", target.reason_detail},
        {"gpus", std::move(gpus)},
    };
}

json refusal_json(const reclaim::Refusal& refusal) {
    return json{
        {"pid", refusal.pid > 0 ? json(refusal.pid) : json(nullptr)},
        {"argument", refusal.argument},
        {"name", refusal.name.empty() ? json(nullptr) : json(refusal.name)},
        {"kind", reclaim::to_string(refusal.kind)},
        {"why", refusal.why},
        {"explicitly_named", refusal.explicitly_named},
    };
}

json planned_record(const Invocation& who, const reclaim::KillPlan& plan, TimePoint when) {
    json record = audit_envelope("planned", who, when);
    json targets = json::array();
    for (const reclaim::PlannedTarget& target : plan.targets)
        targets.push_back(target_json(target));
    json refusals = json::array();
    for (const reclaim::Refusal& refusal : plan.refusals) refusals.push_back(refusal_json(refusal));
    record["aborted"] = plan.aborted();
    record["needs_batch_confirmation"] = plan.needs_batch_confirmation;
    record["targets"] = std::move(targets);
    record["refusals"] = std::move(refusals);
    record["gpus"] = gpu_memory_json(plan.gpu_memory_used_before, plan.gpu_memory_expected_release);
    return record;
}

json refused_record(const Invocation& who, const reclaim::Refusal& refusal, bool plan_aborted,
                    TimePoint when) {
    json record = audit_envelope("refused", who, when);
    json fields = refusal_json(refusal);  // named: a range-for would not keep a temporary alive
    for (auto& [key, value] : fields.items()) record[key] = std::move(value);
    record["plan_aborted"] = plan_aborted;
    return record;
}

json signal_intent_record(const Invocation& who, const reclaim::PlannedTarget& target, int signal,
                          TimePoint when) {
    json record = audit_envelope("signal_intent", who, when);
    record["target"] = target_json(target);
    record["signal"] = reclaim::signal_name(signal);
    return record;
}

json signalled_record(const Invocation& who, const reclaim::TargetResult& result, int signal,
                      TimePoint when) {
    json record = audit_envelope("signalled", who, when);
    record["target"] = target_json(result.target);
    record["signal"] = reclaim::signal_name(signal);
    record["signals_sent"] = signals_json(result);
    return record;
}

json result_record(const Invocation& who, const reclaim::TargetResult& result, TimePoint when) {
    json record = audit_envelope("result", who, when);
    record["target"] = target_json(result.target);
    record["outcome"] = reclaim::to_string(result.outcome);
    record["signals_sent"] = signals_json(result);
    record["elapsed_seconds"] = result.seconds;
    record["note"] = or_null(result.note);
    return record;
}

json verified_record(const Invocation& who, const reclaim::GpuRelease& release, TimePoint when) {
    json record = audit_envelope("verified", who, when);
    record["gpu"] = release.gpu;
    record["memory_used_before_bytes"] = or_null(release.memory_used_before);
    record["memory_used_after_bytes"] = or_null(release.memory_used_after);
    record["memory_reclaimed_bytes"] = or_null(release.memory_reclaimed_bytes);
    record["seconds_to_release"] = or_null(release.seconds_to_release);
    record["released"] = release.released;
    record["soft_locked"] = release.soft_locked;
    record["targets_still_holding"] = release.targets_still_holding;
    return record;
}

std::vector<json> plan_records(const Invocation& who, const reclaim::KillPlan& plan,
                               TimePoint when) {
    std::vector<json> records{planned_record(who, plan, when)};
    const bool aborted = plan.aborted();
    for (const reclaim::Refusal& refusal : plan.refusals) {
        records.push_back(refused_record(who, refusal, aborted, when));
    }
    return records;
}

std::vector<json> signal_intent_records(const Invocation& who,
                                        const std::vector<reclaim::SignalSend>& sends,
                                        const reclaim::ExecuteResult& executed, TimePoint when) {
    std::vector<json> records;
    for (const reclaim::SignalSend& send : sends) {
        records.push_back(
            signal_intent_record(who, executed.targets.at(send.target).target, send.signal, when));
    }
    return records;
}

std::vector<json> signalled_records(const Invocation& who,
                                    const std::vector<reclaim::SignalSend>& sends,
                                    const reclaim::ExecuteResult& executed, TimePoint when) {
    std::vector<json> records;
    for (const reclaim::SignalSend& send : sends) {
        records.push_back(
            signalled_record(who, executed.targets.at(send.target), send.signal, when));
    }
    return records;
}

std::vector<json> result_records(const Invocation& who, const reclaim::ExecuteResult& executed,
                                 TimePoint when) {
    std::vector<json> records;
    for (const reclaim::TargetResult& result : executed.targets) {
        records.push_back(result_record(who, result, when));
    }
    return records;
}

std::vector<json> verification_records(const Invocation& who,
                                       const std::vector<reclaim::GpuRelease>& releases,
                                       TimePoint when) {
    std::vector<json> records;
    for (const reclaim::GpuRelease& release : releases) {
        records.push_back(verified_record(who, release, when));
    }
    return records;
}

}  // namespace gpukill::audit

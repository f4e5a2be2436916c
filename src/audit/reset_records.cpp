#include "audit/reset_records.hpp"

#include "model/json_optional.hpp"

namespace gpukill::audit {
namespace {

using json = nlohmann::ordered_json;

// The end of the tool's output, where its verdict is, cut at a character boundary.
std::string output_tail(const std::string& output) {
    if (output.size() <= kResetOutputBytes) return output;
    std::size_t cut = output.size() - kResetOutputBytes;
    while (cut < output.size() && (static_cast<unsigned char>(output[cut]) & 0xC0) == 0x80) ++cut;
    return output.substr(cut);
}

json indices_json(const std::vector<unsigned>& indices) {
    json list = json::array();
    for (unsigned index : indices) list.push_back(index);
    return list;
}

}  // namespace

json reset_gpu_json(const reclaim::ResetGpu& gpu) {
    return json{
        {"index", gpu.index},
        {"vendor", to_string(gpu.vendor)},
        {"name", or_null(gpu.name)},
        {"uuid", or_null(gpu.uuid)},
        {"pci_bus_id", or_null(gpu.pci_bus_id)},
        {"method", reclaim::to_string(gpu.method)},
        {"memory_used_before_bytes", or_null(gpu.memory_used_before_bytes)},
        {"memory_total_bytes", or_null(gpu.memory_total_bytes)},
        {"persistence_mode", or_null(gpu.persistence_mode)},
        {"mig_mode", or_null(gpu.mig_mode)},
        {"lost", gpu.lost},
        {"reset_with", indices_json(gpu.reset_with)},
        {"notes", gpu.notes},
    };
}

json reset_holder_json(const reclaim::ResetHolder& holder) {
    return json{
        {"pid", holder.pid},
        {"start_time_ticks", holder.start_time_ticks},
        {"name", holder.name},
        {"user", holder.user},
        {"uid", or_null(holder.uid)},
        {"gpus", indices_json(holder.gpus)},
        {"memory_bytes", or_null(holder.memory_bytes)},
        {"driver_listed", holder.driver_listed},
    };
}

json reset_attempt_json(const reclaim::ResetAttempt& attempt) {
    return json{
        {"gpus", indices_json(attempt.gpus)},
        {"method", reclaim::to_string(attempt.method)},
        {"command", attempt.command},
        {"exit_status", or_null(attempt.exit_status)},
        {"succeeded", attempt.status.failure == reclaim::ResetFailure::none},
        {"failure", attempt.status.failure == reclaim::ResetFailure::none
                        ? json(nullptr)
                        : json(reclaim::to_string(attempt.status.failure))},
        {"message", attempt.status.meaning},
        {"advice", or_null(attempt.status.advice)},
        {"output", output_tail(attempt.output)},
        {"seconds", attempt.seconds},
    };
}

json reset_check_json(const reclaim::ResetGpu& gpu,
                      const std::optional<reclaim::ResetCheck>& check) {
    std::optional<std::uint64_t> freed;
    if (check && check->memory_used_after_bytes && gpu.memory_used_before_bytes) {
        freed = *gpu.memory_used_before_bytes > *check->memory_used_after_bytes
                    ? *gpu.memory_used_before_bytes - *check->memory_used_after_bytes
                    : 0;
    }
    json holders = json::array();
    if (check) {
        for (pid_t pid : check->holders) holders.push_back(pid);
    }
    return json{
        {"found", check ? json(check->found) : json(nullptr)},
        {"lost_after", check && check->found ? json(check->lost) : json(nullptr)},
        {"memory_used_after_bytes",
         check ? or_null(check->memory_used_after_bytes) : json(nullptr)},
        {"memory_freed_bytes", or_null(freed)},
        {"memory_free", check && check->memory_judged ? json(check->memory_free) : json(nullptr)},
        {"holders_after", std::move(holders)},
        {"verified", check.has_value() && check->ok},
        {"seconds_to_verify", check ? or_null(check->seconds_to_ok) : json(nullptr)},
    };
}

json reset_planned_record(const Invocation& who, const reclaim::ResetPlan& plan, bool dry_run,
                          ResetTime when) {
    json record = audit_envelope("reset_planned", who, when);
    record["dry_run"] = dry_run;
    record["force"] = plan.force;
    record["decision"] = reclaim::to_string(plan.decision);
    record["block"] = plan.block == reclaim::ResetBlock::none
                          ? json(nullptr)
                          : json(reclaim::to_string(plan.block));
    record["why"] = plan.why.empty() ? json(nullptr) : json(plan.why);
    record["advice"] = or_null(plan.advice);
    json gpus = json::array();
    for (const reclaim::ResetGpu& gpu : plan.gpus) gpus.push_back(reset_gpu_json(gpu));
    record["gpus"] = std::move(gpus);
    json skipped = json::array();
    for (const reclaim::SkippedGpu& gpu : plan.skipped) {
        skipped.push_back({{"index", gpu.index}, {"name", or_null(gpu.name)}, {"why", gpu.why}});
    }
    record["skipped"] = std::move(skipped);
    json holders = json::array();
    for (const reclaim::ResetHolder& holder : plan.holders) {
        holders.push_back(reset_holder_json(holder));
    }
    record["holders"] = std::move(holders);
    return record;
}

json reset_refused_record(const Invocation& who, const reclaim::ResetPlan& plan,
                          const std::string& why, const std::vector<pid_t>& holders,
                          ResetTime when) {
    json record = audit_envelope("reset_refused", who, when);
    json gpus = json::array();
    for (const reclaim::ResetGpu& gpu : plan.gpus) gpus.push_back(gpu.index);
    record["gpus"] = std::move(gpus);
    record["decision"] = reclaim::to_string(plan.decision);
    record["block"] = plan.block == reclaim::ResetBlock::none
                          ? json(reclaim::to_string(reclaim::ResetBlock::holders))
                          : json(reclaim::to_string(plan.block));
    record["why"] = why;
    record["advice"] = or_null(plan.advice);
    json pids = json::array();
    for (pid_t pid : holders) pids.push_back(pid);
    record["holders"] = std::move(pids);
    return record;
}

json reset_result_record(const Invocation& who, const reclaim::ResetGpu& gpu,
                         const reclaim::ResetAttempt& attempt,
                         const std::optional<reclaim::ResetCheck>& check, ResetTime when) {
    json record = audit_envelope("reset_result", who, when);
    record["gpu"] = gpu.index;
    record["pci_bus_id"] = or_null(gpu.pci_bus_id);
    record["memory_used_before_bytes"] = or_null(gpu.memory_used_before_bytes);
    record["reset"] = reset_attempt_json(attempt);
    const json check_fields = reset_check_json(gpu, check);
    for (const auto& [key, value] : check_fields.items()) record[key] = value;
    return record;
}

}  // namespace gpukill::audit

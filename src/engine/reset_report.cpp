#include "engine/reset_report.hpp"

#include <fmt/format.h>

#include "audit/reset_records.hpp"
#include "model/json_optional.hpp"

namespace gpukill::engine {

using json = nlohmann::ordered_json;

const reclaim::ResetAttempt* attempt_for(const ResetReport& report, unsigned gpu) {
    if (report.attempts == nullptr) return nullptr;
    for (const reclaim::ResetAttempt& attempt : *report.attempts) {
        for (unsigned member : attempt.gpus) {
            if (member == gpu) return &attempt;
        }
    }
    return nullptr;
}

std::optional<reclaim::ResetCheck> check_for(const ResetReport& report, unsigned gpu) {
    if (report.checks == nullptr) return std::nullopt;
    for (const reclaim::ResetCheck& check : *report.checks) {
        if (check.gpu == gpu) return check;
    }
    return std::nullopt;
}

KillReport reclaim_kill_report(const ResetReport& report) {
    return KillReport{.plan = report.reclaim_plan,
                      .dry_run = report.dry_run,
                      .preview = false,
                      .first_signal = "SIGTERM",
                      .force = true,
                      .timeout_seconds = report.timeout_seconds,
                      .results = report.reclaim_results,
                      .releases = nullptr,
                      .exit_code = report.exit_code};
}

nlohmann::ordered_json reset_report_json(const ResetReport& report) {
    const reclaim::ResetPlan& plan = *report.plan;
    json gpus = json::array();
    for (const reclaim::ResetGpu& gpu : plan.gpus) {
        json entry = audit::reset_gpu_json(gpu);
        const reclaim::ResetAttempt* attempt = attempt_for(report, gpu.index);
        entry["reset"] = attempt != nullptr ? audit::reset_attempt_json(*attempt) : json(nullptr);
        const json check_fields = audit::reset_check_json(gpu, check_for(report, gpu.index));
        for (const auto& [key, value] : check_fields.items()) entry[key] = value;
        gpus.push_back(std::move(entry));
    }
    json skipped = json::array();
    for (const reclaim::SkippedGpu& gpu : plan.skipped) {
        skipped.push_back({{"index", gpu.index}, {"name", or_null(gpu.name)}, {"why", gpu.why}});
    }
    json holders = json::array();
    for (const reclaim::ResetHolder& holder : plan.holders) {
        holders.push_back(audit::reset_holder_json(holder));
    }
    return json{
        {"schema_version", kResetSchemaVersion},
        {"dry_run", report.dry_run},
        {"force", plan.force},
        {"decision", reclaim::to_string(plan.decision)},
        {"block", plan.block == reclaim::ResetBlock::none ? json(nullptr)
                                                          : json(reclaim::to_string(plan.block))},
        {"why", plan.why.empty() ? json(nullptr) : json(plan.why)},
        {"advice", or_null(plan.advice)},
        {"gpus", std::move(gpus)},
        {"skipped", std::move(skipped)},
        {"holders", std::move(holders)},
        {"reclaim", report.reclaim_plan != nullptr ? kill_report_json(reclaim_kill_report(report))
                                                   : json(nullptr)},
        {"stopped", or_null(report.stopped)},
        {"still_holding", report.still_holding},
        {"local_agent_pid", or_null(report.local_agent_pid)},
        {"executed", report.attempts != nullptr},
        {"exit_code", report.exit_code},
        {"plan_id", report.plan_id},
    };
}

}  // namespace gpukill::engine

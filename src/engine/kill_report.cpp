#include "engine/kill_report.hpp"

#include <fmt/format.h>

#include "model/json_optional.hpp"

namespace gpukill::engine {
namespace {

using json = nlohmann::ordered_json;

json planned_signals(const KillReport& report) {
    json signals = json::array({report.first_signal});
    if (report.force) signals.push_back("SIGKILL");
    return signals;
}

json target_json(const reclaim::PlannedTarget& target) {
    json memory = json::object();
    for (const auto& [gpu, bytes] : target.memory_bytes) memory[std::to_string(gpu)] = bytes;
    return json{
        {"pid", target.identity.pid},
        {"start_time_ticks", target.identity.start_time_ticks},
        {"name", target.name},
        {"user", target.user.empty() ? json(nullptr) : json(target.user)},
        {"reason", to_string(target.reason)},
        {"reason_detail", target.reason_detail},
        {"gpus", target.gpus},
        {"memory_bytes", memory},
    };
}

}  // namespace

nlohmann::ordered_json kill_report_json(const KillReport& report) {
    const reclaim::KillPlan& plan = *report.plan;
    json targets = json::array();
    if (report.results != nullptr) {
        for (const reclaim::TargetResult& result : *report.results) {
            json entry = target_json(result.target);
            entry["outcome"] = to_string(result.outcome);
            entry["signals_sent"] = result.signals_sent;
            // Time to a confirmed exit; null when there was none to time.
            const bool timed = result.outcome == reclaim::Outcome::terminated ||
                               result.outcome == reclaim::Outcome::killed;
            entry["seconds"] = timed ? json(result.seconds) : json(nullptr);
            entry["note"] = or_null(result.note);
            targets.push_back(std::move(entry));
        }
    } else {
        for (const reclaim::PlannedTarget& target : plan.targets) {
            json entry = target_json(target);
            entry["outcome"] = nullptr;
            entry["signals_sent"] = json::array();
            entry["seconds"] = nullptr;
            entry["note"] = nullptr;
            targets.push_back(std::move(entry));
        }
    }
    for (const reclaim::Refusal& refusal : plan.refusals) {
        targets.push_back(json{
            {"pid", refusal.pid == 0 ? json(nullptr) : json(refusal.pid)},
            {"argument", refusal.argument.empty() ? json(nullptr) : json(refusal.argument)},
            {"name", refusal.name.empty() ? json(nullptr) : json(refusal.name)},
            {"outcome", "refused"},
            {"refusal", to_string(refusal.kind)},
            {"note", refusal.why},
            {"explicitly_named", refusal.explicitly_named},
            {"signals_sent", json::array()},
        });
    }
    json gpus = json::array();
    if (report.releases != nullptr) {
        for (const reclaim::GpuRelease& release : *report.releases) {
            gpus.push_back(json{
                {"index", release.gpu},
                {"memory_used_before_bytes", or_null(release.memory_used_before)},
                {"memory_used_after_bytes", or_null(release.memory_used_after)},
                {"memory_reclaimed_bytes", or_null(release.memory_reclaimed_bytes)},
                {"seconds_to_release", or_null(release.seconds_to_release)},
                {"released", release.released},
                {"soft_locked", release.soft_locked},
                {"targets_still_holding", release.targets_still_holding},
            });
        }
    } else {
        for (const auto& [gpu, before] : plan.gpu_memory_used_before) {
            auto expected = plan.gpu_memory_expected_release.find(gpu);
            gpus.push_back(json{
                {"index", gpu},
                {"memory_used_before_bytes", or_null(before)},
                {"memory_expected_release_bytes", expected == plan.gpu_memory_expected_release.end()
                                                      ? json(nullptr)
                                                      : or_null(expected->second)},
            });
        }
    }
    json document{
        {"schema_version", kKillSchemaVersion},
        {"dry_run", report.dry_run},
        {"preview", report.preview},
        {"executed", report.results != nullptr},
        {"planned_signals", planned_signals(report)},
        {"timeout_seconds", report.timeout_seconds},
        {"targets", targets},
        {"gpus", gpus},
        {"exit_code", report.exit_code},
    };
    if (!report.plan_id.empty()) document["plan_id"] = report.plan_id;
    return document;
}

}  // namespace gpukill::engine

#include "cli/kill_report.hpp"

#include <fmt/format.h>

#include "cli/human_format.hpp"
#include "cli/text_table.hpp"
#include "model/json_optional.hpp"

namespace gpukill::cli {
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

std::string reason_cell(const reclaim::PlannedTarget& target) {
    return target.reason_detail.empty() ? to_string(target.reason) : target.reason_detail;
}

std::string signals_cell(const std::vector<std::string>& signals) {
    return signals.empty() ? "-" : fmt::format("{}", fmt::join(signals, ","));
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
    return json{
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
}

std::string render_kill_report(const KillReport& report) {
    const reclaim::KillPlan& plan = *report.plan;
    std::string out;
    if (report.results == nullptr) {
        if (plan.aborted()) {
            out += "Nothing was signalled: a process named with --pid was refused.\n";
        } else if (plan.targets.empty()) {
            out += "No process to signal.\n";
        } else {
            out += fmt::format(
                "{} {}{} to {} process{}:\n", report.dry_run ? "Dry run: would send" : "Would send",
                report.first_signal,
                report.force ? fmt::format(", then SIGKILL to survivors after {:g} s",
                                           report.timeout_seconds)
                             : "",
                plan.targets.size(), plan.targets.size() == 1 ? "" : "es");
            TextTable table({"PID", "START", "NAME", "USER", "GPUS", "MEMORY", "WHY"},
                            {true, true, false, false, false, true, false});
            for (const reclaim::PlannedTarget& target : plan.targets) {
                std::uint64_t memory = 0;
                for (const auto& [gpu, bytes] : target.memory_bytes) memory += bytes;
                table.add_row(
                    {std::to_string(target.identity.pid),
                     std::to_string(target.identity.start_time_ticks), target.name,
                     target.user.empty() ? "?" : target.user,
                     target.gpus.empty() ? "-" : fmt::format("{}", fmt::join(target.gpus, ",")),
                     target.memory_bytes.empty() ? "-" : format_bytes(memory),
                     reason_cell(target)});
            }
            out += table.render(2);
        }
        if (report.preview) {
            out +=
                "Nothing was signalled: this selector can match many processes; add --batch "
                "to act on them.\n";
        }
    } else {
        TextTable table({"PID", "NAME", "USER", "WHY", "OUTCOME", "SIGNALS", "TIME"},
                        {true, false, false, false, false, false, true});
        for (const reclaim::TargetResult& result : *report.results) {
            table.add_row({std::to_string(result.target.identity.pid), result.target.name,
                           result.target.user.empty() ? "?" : result.target.user,
                           reason_cell(result.target), to_string(result.outcome),
                           signals_cell(result.signals_sent),
                           result.outcome == reclaim::Outcome::terminated ||
                                   result.outcome == reclaim::Outcome::killed
                               ? fmt::format("{:.2f} s", result.seconds)
                               : "-"});
        }
        if (!table.empty()) out += table.render();
        for (const reclaim::TargetResult& result : *report.results) {
            if (result.note) {
                out += fmt::format("  ! PID {}: {}\n", result.target.identity.pid,
                                   printable(*result.note));
            }
        }
    }
    for (const reclaim::Refusal& refusal : plan.refusals) {
        std::string who = refusal.pid != 0 ? fmt::format("PID {}", refusal.pid)
                                           : fmt::format("'{}'", refusal.argument);
        if (!refusal.name.empty()) who += fmt::format(" ({})", refusal.name);
        out += fmt::format("refused {}: {}\n", printable(who), printable(refusal.why));
    }
    if (report.releases != nullptr) {
        for (const reclaim::GpuRelease& release : *report.releases) {
            std::string figures = fmt::format("{} -> {}", format_bytes(release.memory_used_before),
                                              format_bytes(release.memory_used_after));
            if (release.released) {
                out += fmt::format("GPU {}: {} reclaimed in {:.2f} s ({})\n", release.gpu,
                                   format_bytes(release.memory_reclaimed_bytes),
                                   release.seconds_to_release.value_or(0), figures);
            } else if (release.soft_locked) {
                out += fmt::format(
                    "GPU {}: memory still used with no process holding it ({}): the GPU is "
                    "soft-locked; a GPU reset is the remedy\n",
                    release.gpu, figures);
            } else {
                out += fmt::format("GPU {}: memory not released within the verify timeout ({})\n",
                                   release.gpu, figures);
            }
        }
    }
    return out;
}

}  // namespace gpukill::cli

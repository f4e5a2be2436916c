#include "cli/kill_text.hpp"

#include <fmt/format.h>

#include "cli/text_table.hpp"
#include "model/human_format.hpp"

namespace gpukill::cli {
namespace {

std::string reason_cell(const reclaim::PlannedTarget& target) {
    return target.reason_detail.empty() ? to_string(target.reason) : target.reason_detail;
}

std::string signals_cell(const std::vector<std::string>& signals) {
    return signals.empty() ? "-" : fmt::format("{}", fmt::join(signals, ","));
}

}  // namespace

std::string render_kill_refusals(const engine::KillReport& report) {
    const reclaim::KillPlan& plan = *report.plan;
    std::string out;
    for (const reclaim::Refusal& refusal : plan.refusals) {
        std::string who = refusal.pid != 0 ? fmt::format("PID {}", refusal.pid)
                                           : fmt::format("'{}'", refusal.argument);
        if (!refusal.name.empty()) who += fmt::format(" ({})", refusal.name);
        out += fmt::format("gpukill: refused {}: {}\n", printable(who), printable(refusal.why));
    }
    if (plan.aborted() && report.results == nullptr) {
        out += "gpukill: nothing was signalled: a process named with --pid was refused\n";
    }
    return out;
}

std::string render_kill_report(const engine::KillReport& report, bool with_refusals,
                               OutputWidth width) {
    const reclaim::KillPlan& plan = *report.plan;
    std::string out;
    if (report.results == nullptr) {
        if (plan.aborted()) {
            if (with_refusals) {
                // Only reset's reclaim step shows refusals here: its holders were named
                // by the GPU, not by --pid.
                out +=
                    "Nothing was signalled: a holder of the GPU may not be signalled, so none "
                    "was.\n";
            }
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
            table.drop_when_narrow("START");
            out += table.render(2, width);
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
        if (!table.empty()) out += table.render(0, width);
        for (const reclaim::TargetResult& result : *report.results) {
            if (result.note) {
                out += fmt::format("  ! PID {}: {}\n", result.target.identity.pid,
                                   printable(*result.note));
            }
        }
    }
    for (const reclaim::Refusal& refusal : plan.refusals) {
        if (!with_refusals) break;
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

#include "top/action_text.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "model/human_format.hpp"

namespace gpukill::top {
namespace {

std::string action_memory_of(const reclaim::PlannedTarget& target) {
    if (target.gpus.empty()) return "no GPU";
    std::vector<std::string> parts;
    for (unsigned gpu : target.gpus) {
        auto memory = target.memory_bytes.find(gpu);
        parts.push_back(fmt::format(
            "GPU {}: {}", gpu,
            memory == target.memory_bytes.end() ? "memory unknown" : format_bytes(memory->second)));
    }
    return fmt::format("{}", fmt::join(parts, ", "));
}

std::string action_pid_list(const std::vector<pid_t>& pids) {
    return fmt::format("{}", fmt::join(pids, ", "));
}

}  // namespace

std::vector<std::string> confirmation_lines(const engine::KillOutcome& plan,
                                            const std::vector<Row>& refused) {
    std::vector<std::string> lines;
    const std::size_t count = plan.plan.targets.size();
    if (count == 0) {
        lines.push_back(fmt::format("Nothing to send {} to.", plan.first_signal_name));
    } else {
        lines.push_back(fmt::format("Send {} to {} process{}?", plan.first_signal_name, count,
                                    count == 1 ? "" : "es"));
    }
    for (const reclaim::PlannedTarget& target : plan.plan.targets) {
        std::string line =
            fmt::format("  PID {}  {}  {}  {}", target.identity.pid, printable(target.user),
                        printable(target.name), action_memory_of(target));
        if (target.reason != reclaim::TargetReason::named_pid && !target.reason_detail.empty()) {
            line += "  (" + printable(target.reason_detail) + ")";
        }
        lines.push_back(std::move(line));
    }
    for (const reclaim::Refusal& refusal : plan.plan.refusals) {
        lines.push_back(fmt::format("  not PID {} {}: {}", refusal.pid, printable(refusal.name),
                                    printable(refusal.why)));
    }
    for (const Row& row : refused) {
        lines.push_back(
            fmt::format("  not PID {}: {}", row.identity.pid, row.not_actionable_reason));
    }
    for (const auto& [gpu, expected] : plan.plan.gpu_memory_expected_release) {
        lines.push_back(fmt::format(
            "Frees {} on GPU {}",
            expected ? format_bytes(*expected) : std::string("an unknown amount"), gpu));
    }
    return lines;
}

std::vector<std::string> kill_summary_lines(const engine::KillOutcome& outcome) {
    std::vector<std::string> lines;
    if (outcome.results) {
        for (const reclaim::TargetResult& result : *outcome.results) {
            std::string line =
                fmt::format("PID {} {}: {}", result.target.identity.pid,
                            printable(result.target.name), reclaim::to_string(result.outcome));
            if (!result.signals_sent.empty()) {
                line += fmt::format(" ({})", fmt::join(result.signals_sent, ", "));
            }
            if (result.note) line += ": " + printable(*result.note);
            lines.push_back(std::move(line));
        }
    }
    if (!outcome.releases) return lines;
    for (const reclaim::GpuRelease& release : *outcome.releases) {
        if (release.released) {
            const std::string amount = release.memory_reclaimed_bytes
                                           ? format_bytes(*release.memory_reclaimed_bytes)
                                           : std::string("its memory");
            std::string line =
                fmt::format("GPU {}: memory back: {} came back", release.gpu, amount);
            if (release.seconds_to_release) {
                line += fmt::format(" in {:.1f} s", *release.seconds_to_release);
            }
            lines.push_back(std::move(line));
        } else if (release.soft_locked) {
            lines.push_back(fmt::format(
                "GPU {}: memory NOT back: {} still used and no process holds it (soft-locked); "
                "press R to reset it (preflight first)",
                release.gpu, format_bytes(release.memory_used_after)));
        } else if (!release.targets_still_holding.empty()) {
            lines.push_back(fmt::format("GPU {}: memory NOT back: still held by PID {}",
                                        release.gpu,
                                        action_pid_list(release.targets_still_holding)));
        } else {
            lines.push_back(fmt::format("GPU {}: memory NOT back within {:.0f} s ({} used)",
                                        release.gpu, outcome.verify_timeout_seconds,
                                        format_bytes(release.memory_used_after)));
        }
    }
    if (outcome.audit_problem) lines.push_back("warning: " + *outcome.audit_problem);
    return lines;
}

std::vector<unsigned> soft_locked_gpus(const engine::KillOutcome& outcome) {
    std::vector<unsigned> gpus;
    if (!outcome.releases) return gpus;
    for (const reclaim::GpuRelease& release : *outcome.releases) {
        if (release.soft_locked) gpus.push_back(release.gpu);
    }
    return gpus;
}

std::vector<std::string> reset_preflight_lines(const engine::ResetOutcome& preview) {
    const reclaim::ResetPlan& plan = preview.plan;
    std::vector<std::string> lines;
    std::vector<unsigned> indexes;
    for (const reclaim::ResetGpu& gpu : plan.gpus) indexes.push_back(gpu.index);
    switch (plan.decision) {
        case reclaim::ResetDecision::reset:
        case reclaim::ResetDecision::reclaim_then_reset:
            lines.push_back(fmt::format("Reset GPU {}?", fmt::join(indexes, ", ")));
            break;
        case reclaim::ResetDecision::held:
        case reclaim::ResetDecision::refused:
            lines.push_back(fmt::format("GPU {} cannot be reset: {}", fmt::join(indexes, ", "),
                                        printable(plan.why)));
            if (plan.advice) lines.push_back("  " + printable(*plan.advice));
            break;
    }
    for (const reclaim::ResetGpu& gpu : plan.gpus) {
        lines.push_back(fmt::format(
            "  GPU {} {}: {} used, by {}", gpu.index, printable(gpu.name.value_or("?")),
            format_bytes(gpu.memory_used_before_bytes), reclaim::to_string(gpu.method)));
        for (const std::string& note : gpu.notes) lines.push_back("    " + printable(note));
    }
    for (const reclaim::ResetHolder& holder : plan.holders) {
        lines.push_back(fmt::format("  held by PID {} {} ({})", holder.pid, printable(holder.name),
                                    printable(holder.user)));
    }
    return lines;
}

std::vector<std::string> reset_summary_lines(const engine::ResetOutcome& outcome) {
    std::vector<std::string> lines;
    if (outcome.stopped) lines.push_back("Not reset: " + printable(*outcome.stopped));
    if (outcome.attempts) {
        for (const reclaim::ResetAttempt& attempt : *outcome.attempts) {
            std::string line = fmt::format("GPU {}: {}", fmt::join(attempt.gpus, ", "),
                                           attempt.status.failure == reclaim::ResetFailure::none
                                               ? std::string("reset")
                                               : "reset failed: " + attempt.status.meaning);
            if (attempt.status.advice) line += " (" + printable(*attempt.status.advice) + ")";
            lines.push_back(std::move(line));
        }
    }
    for (const reclaim::ResetCheck& check : outcome.checks) {
        lines.push_back(fmt::format(
            "GPU {}: {}", check.gpu,
            check.ok ? "back and idle"
                     : (check.found ? "not idle after the reset" : "not found after the reset")));
    }
    if (outcome.audit_problem) lines.push_back("warning: " + *outcome.audit_problem);
    return lines;
}

}  // namespace gpukill::top

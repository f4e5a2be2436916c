#include "cli/reset_text.hpp"

#include <fmt/format.h>

#include "cli/kill_text.hpp"
#include "cli/text_table.hpp"
#include "model/human_format.hpp"

namespace gpukill::cli {
namespace {

using engine::ResetReport;

std::string gpu_title(const reclaim::ResetGpu& gpu) {
    std::string title = fmt::format("GPU {}", gpu.index);
    if (gpu.name) title += "  " + printable(*gpu.name);
    if (gpu.pci_bus_id) title += "  " + *gpu.pci_bus_id;
    return title;
}

std::string method_text(const reclaim::ResetGpu& gpu) {
    switch (gpu.method) {
        case reclaim::ResetMethod::nvidia_smi:
            return "nvidia-smi -r";
        case reclaim::ResetMethod::amdgpu_debugfs:
            return "amdgpu recovery (" + gpu.amdgpu_recover_path.value_or("debugfs") + ")";
    }
    return "?";
}

std::string plan_text(const ResetReport& report, OutputWidth width) {
    const reclaim::ResetPlan& plan = *report.plan;
    std::string out;
    if (!plan.gpus.empty()) {
        out += report.dry_run ? "Reset plan (dry run: nothing is done):\n" : "Reset plan:\n";
    }
    for (const reclaim::ResetGpu& gpu : plan.gpus) {
        out += fmt::format("  {}  via {}  used {} / {}\n", gpu_title(gpu), method_text(gpu),
                           format_bytes(gpu.memory_used_before_bytes),
                           format_bytes(gpu.memory_total_bytes));
        for (const std::string& note : gpu.notes) out += "    note: " + note + "\n";
    }
    for (const reclaim::SkippedGpu& gpu : plan.skipped) {
        out += fmt::format("  skipped: {}\n", printable(gpu.why));
    }
    if (!plan.holders.empty()) {
        out += fmt::format("Held by {} process{}:\n", plan.holders.size(),
                           plan.holders.size() == 1 ? "" : "es");
        TextTable table({"PID", "USER", "NAME", "GPUS", "MEMORY", "SEEN BY"},
                        {true, false, false, false, true, false});
        for (const reclaim::ResetHolder& holder : plan.holders) {
            table.add_row({std::to_string(holder.pid), holder.user.empty() ? "?" : holder.user,
                           holder.name, fmt::format("{}", fmt::join(holder.gpus, ",")),
                           holder.memory_bytes ? format_bytes(*holder.memory_bytes) : "-",
                           holder.driver_listed ? "driver" : "file only"});
        }
        out += table.render(2, width);
    }
    return out;
}

// The tool's own words, line by line, each made safe for a terminal; blank lines dropped.
std::string quoted_output(std::string_view output) {
    std::string out;
    while (!output.empty()) {
        const std::size_t end = output.find('\n');
        const std::string_view line = output.substr(0, end);
        if (line.find_first_not_of(" \t\r") != std::string_view::npos) {
            out += "    | " + printable(line) + "\n";
        }
        if (end == std::string_view::npos) break;
        output.remove_prefix(end + 1);
    }
    return out;
}

std::string outcome_text(const ResetReport& report) {
    std::string out;
    for (const reclaim::ResetGpu& gpu : report.plan->gpus) {
        const reclaim::ResetAttempt* attempt = attempt_for(report, gpu.index);
        if (attempt == nullptr) continue;
        const std::string title = gpu.pci_bus_id
                                      ? fmt::format("GPU {} ({})", gpu.index, *gpu.pci_bus_id)
                                      : fmt::format("GPU {}", gpu.index);
        if (attempt->status.failure == reclaim::ResetFailure::none) {
            out += fmt::format("{}: reset by {} in {:.2f} s\n", title,
                               reclaim::to_string(gpu.method), attempt->seconds);
        } else {
            out += fmt::format("{}: reset failed: {}\n", title, printable(attempt->status.meaning));
        }
        out += quoted_output(attempt->output);
        if (attempt->status.advice) out += "    -> " + *attempt->status.advice + "\n";
        auto check = check_for(report, gpu.index);
        if (!check) continue;
        if (!check->found) {
            out += "    the GPU is not enumerated any more: it did not come back\n";
            continue;
        }
        if (check->lost) {
            out += "    the driver reports the GPU lost: power-cycle or reboot the node\n";
            continue;
        }
        std::string memory =
            fmt::format("memory {} -> {}", format_bytes(gpu.memory_used_before_bytes),
                        format_bytes(check->memory_used_after_bytes));
        if (check->ok) {
            out += fmt::format("    answers again; {}; verified in {:.2f} s\n", memory,
                               check->seconds_to_ok.value_or(0));
        } else if (!check->holders.empty()) {
            out += fmt::format("    answers again; {}; but held again by PID {}\n", memory,
                               fmt::join(check->holders, ", "));
        } else {
            out += fmt::format("    answers again; {}: not back to idle within --verify-timeout\n",
                               memory);
        }
    }
    return out;
}

}  // namespace

std::string render_reset_report(const ResetReport& report, OutputWidth width) {
    const reclaim::ResetPlan& plan = *report.plan;
    std::string out = plan_text(report, width);
    if (plan.gpus.empty() && plan.decision == reclaim::ResetDecision::reset) {
        out += "No GPU to reset.\n";
        return out;
    }
    if (plan.decision == reclaim::ResetDecision::held ||
        plan.decision == reclaim::ResetDecision::refused) {
        out += fmt::format("Not reset: {}\n", printable(plan.why));
        if (plan.advice) out += "  -> " + *plan.advice + "\n";
        return out;
    }
    if (report.reclaim_plan != nullptr) {
        out += report.reclaim_results != nullptr ? "Reclaimed the holders first:\n"
                                                 : "The holders are reclaimed first:\n";
        out += render_kill_report(reclaim_kill_report(report), true, width);
    }
    if (report.stopped) {
        out += fmt::format("Not reset: {}\n", printable(*report.stopped));
        return out;
    }
    if (report.dry_run) {
        out += "Dry run: nothing was signalled or reset.\n";
        return out;
    }
    if (report.local_agent_pid) {
        out += fmt::format("The gpukill agent (PID {}) let go of the GPUs for the reset.\n",
                           *report.local_agent_pid);
    }
    out += outcome_text(report);
    return out;
}

}  // namespace gpukill::cli

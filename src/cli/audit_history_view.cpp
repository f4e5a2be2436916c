#include "cli/audit_history_view.hpp"

#include <fmt/format.h>

#include <cmath>

#include "cli/text_table.hpp"
#include "model/human_format.hpp"
#include "model/json_optional.hpp"
#include "model/snapshot_json.hpp"

namespace gpukill::cli {
namespace {

using Json = nlohmann::ordered_json;

std::string hours_text(double hours) {
    return fmt::format("{:.2f}", hours);
}

std::string percent_text(const std::optional<double>& percent) {
    return percent ? fmt::format("{:.0f}%", *percent) : "?";
}

std::string seconds_text(std::int64_t ms) {
    const double seconds = static_cast<double>(ms) / 1000.0;
    if (seconds < 10) return fmt::format("{:.1f} s", seconds);
    if (seconds < 120) return fmt::format("{:.0f} s", seconds);
    return fmt::format("{:.0f} min", seconds / 60);
}

std::string hours_window_text(double hours) {
    if (hours == std::floor(hours)) return fmt::format("{:.0f} h", hours);
    return fmt::format("{} h", hours);
}

std::string gpu_list(const std::vector<unsigned>& gpus) {
    std::string out;
    for (unsigned gpu : gpus) {
        if (!out.empty()) out += ',';
        out += std::to_string(gpu);
    }
    return out;
}

// "120 samples, about every 10 s; one sample counts for at most 20 s"
std::string describe_sampling(const history::SampleWeights& weights) {
    std::string text =
        fmt::format("{} sample{}", weights.instants, weights.instants == 1 ? "" : "s");
    if (weights.typical_interval_ms) {
        text +=
            fmt::format(", about every {}; a sample counts for at most {}",
                        seconds_text(*weights.typical_interval_ms), seconds_text(weights.cap_ms));
    } else if (weights.instants == 1) {
        text += " (GPU-hours need at least two)";
    }
    return text;
}

std::string heading(const AuditScope& scope, const history::SampleWeights& weights,
                    std::string_view what) {
    return fmt::format("{} ({}): {}\nHistory: {}\n", what, describe_window(scope),
                       describe_sampling(weights), scope.source);
}

}  // namespace

std::string describe_window(const AuditScope& scope) {
    return fmt::format("last {}, {} to {}", hours_window_text(scope.hours),
                       format_local_time(scope.since_unix_ms),
                       format_local_time(scope.until_unix_ms));
}

std::string process_usage_table(const AuditScope& scope, const history::SampleWeights& weights,
                                const std::vector<history::ProcessUsage>& processes,
                                OutputWidth width) {
    std::string out = heading(scope, weights, "GPU processes");
    if (processes.empty()) return out + "\nNo GPU process matched in this window.\n";
    TextTable table({"PID", "USER", "NAME", "GPUS", "FIRST SEEN", "LAST SEEN", "SAMPLES",
                     "PEAK MEM", "AVG MEM", "AVG UTIL", "GPU-HOURS"},
                    {true, false, false, false, false, false, true, true, true, true, true});
    for (const history::ProcessUsage& p : processes) {
        table.add_row({std::to_string(p.pid), p.user, p.name + (p.orphaned ? " (orphaned)" : ""),
                       gpu_list(p.gpus), format_local_time(p.first_seen_unix_ms),
                       format_local_time(p.last_seen_unix_ms), std::to_string(p.samples),
                       format_bytes(p.peak_memory_bytes), format_bytes(p.average_memory_bytes),
                       percent_text(p.average_gpu_utilization_percent), hours_text(p.gpu_hours)});
    }
    for (const char* column : {"FIRST SEEN", "SAMPLES", "AVG MEM", "AVG UTIL", "LAST SEEN"}) {
        table.drop_when_narrow(column);
    }
    return out + "\n" + table.render(0, width);
}

std::string usage_summary_table(const AuditScope& scope, const history::SampleWeights& weights,
                                const history::UsageSummary& summary, OutputWidth width) {
    std::string out = heading(scope, weights, "Usage summary");
    if (summary.gpus.empty() && summary.users.empty()) {
        return out + "\nNothing was recorded in this window.\n";
    }
    out += fmt::format("Total: {} GPU-hours\n", hours_text(summary.total_gpu_hours));

    TextTable users({"USER", "GPU-HOURS", "PEAK MEMORY", "PROCESSES"}, {false, true, true, true});
    for (const auto& g : summary.users) {
        users.add_row({g.key, hours_text(g.gpu_hours), format_bytes(g.peak_memory_bytes),
                       std::to_string(g.processes)});
    }
    TextTable names({"NAME", "GPU-HOURS", "PEAK MEMORY", "PROCESSES", "USERS"},
                    {false, true, true, true, false});
    for (const auto& g : summary.processes) {
        std::string who;
        for (const std::string& user : g.users) who += (who.empty() ? "" : ",") + user;
        names.add_row({g.key, hours_text(g.gpu_hours), format_bytes(g.peak_memory_bytes),
                       std::to_string(g.processes), who});
    }
    TextTable gpus(
        {"GPU", "NAME", "AVG UTIL", "PEAK UTIL", "AVG MEMORY", "PEAK MEMORY", "HOURS IN USE"},
        {true, false, true, true, true, true, true});
    for (const history::GpuUsage& g : summary.gpus) {
        gpus.add_row(
            {std::to_string(g.index), g.name.value_or("?"),
             percent_text(g.average_utilization_percent),
             g.peak_utilization_percent ? fmt::format("{}%", *g.peak_utilization_percent) : "?",
             format_bytes(g.average_memory_used_bytes), format_bytes(g.peak_memory_used_bytes),
             hours_text(g.gpu_hours_in_use)});
    }
    TextTable hours({"HOUR", "GPU-HOURS", "AVG UTIL", "SAMPLES"}, {false, true, true, true});
    for (const history::HourUsage& h : summary.by_hour) {
        if (h.samples == 0 && h.gpu_hours == 0) continue;
        hours.add_row({fmt::format("{:02}:00", h.hour), hours_text(h.gpu_hours),
                       percent_text(h.average_utilization_percent), std::to_string(h.samples)});
    }
    auto section = [&](const char* title, const TextTable& table) {
        out += fmt::format("\n{}\n", title);
        out += table.empty() ? "  (none)\n" : table.render(2, width);
    };
    section("By user", users);
    section("By process name", names);
    section("GPUs, busiest first", gpus);
    section("By hour of day (local time)", hours);
    return out;
}

}  // namespace gpukill::cli

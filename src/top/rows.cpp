#include "top/rows.hpp"

#include <fmt/format.h>

#include "model/human_format.hpp"

namespace gpukill::top {
namespace {

std::string rows_seen_by(const ProcessGpuUse& use) {
    if (!use.known()) return "kfd (any AMD)";
    if (use.seen_by.driver && use.seen_by.device_file) return "driver+file";
    if (use.seen_by.driver) return "driver";
    return "file only";
}

// The image when the runtime named it, without its registry and path (the column is
// narrow; details show it whole); else the runtime and the id's first 12 digits.
std::string rows_container(const ProcessInfo& info) {
    if (!info.container) return "";
    const ContainerInfo& c = *info.container;
    if (c.image && !c.image->empty()) {
        const auto slash = c.image->rfind('/');
        return printable(slash == std::string::npos ? *c.image : c.image->substr(slash + 1));
    }
    if (c.id.empty()) return c.pod_uid ? c.runtime + ":pod " + *c.pod_uid : c.runtime;
    return c.runtime + ":" + c.id.substr(0, 12);
}

std::string rows_command(const ProcessInfo& info) {
    if (info.cmdline.empty()) return "[" + printable(info.comm) + "]";
    std::string joined;
    for (const std::string& argument : info.cmdline) {
        if (!joined.empty()) joined += ' ';
        joined += argument;
    }
    return printable(joined);
}

std::optional<std::int64_t> rows_running_seconds(const Snapshot& snapshot,
                                                 const ProcessInfo& info) {
    if (!snapshot.boot_time_unix_s || snapshot.clock_ticks_per_second <= 0) return std::nullopt;
    const std::int64_t started =
        *snapshot.boot_time_unix_s +
        static_cast<std::int64_t>(info.start_time_ticks /
                                  static_cast<std::uint64_t>(snapshot.clock_ticks_per_second));
    const std::int64_t now = snapshot.timestamp_unix_ms / 1000;
    if (now < started) return 0;
    return now - started;
}

}  // namespace

std::optional<double> cpu_percent(const std::optional<ProcessCpu>& before, const ProcessCpu& now,
                                  double seconds, long clock_ticks_per_second) {
    if (!before || seconds <= 0 || clock_ticks_per_second <= 0) return std::nullopt;
    if (now.cpu_ticks < before->cpu_ticks) return std::nullopt;
    const double ticks = static_cast<double>(now.cpu_ticks - before->cpu_ticks);
    return ticks / (seconds * static_cast<double>(clock_ticks_per_second)) * 100.0;
}

std::vector<Row> build_rows(const Snapshot& snapshot, const CpuReadings& now,
                            const CpuReadings& previous, double seconds, const Viewer& viewer) {
    std::vector<Row> rows;
    for (const SnapshotProcess& process : snapshot.processes) {
        const ProcessInfo& info = process.info;
        const auto key = std::make_pair(info.pid, info.start_time_ticks);
        std::optional<ProcessCpu> reading;
        if (auto found = now.find(key); found != now.end()) reading = found->second;
        std::optional<ProcessCpu> before;
        if (auto found = previous.find(key); found != previous.end()) before = found->second;
        for (const ProcessGpuUse& use : process.gpus) {
            Row row;
            row.gpu = use.gpu_index;
            row.identity = info.identity();
            row.ppid = info.ppid;
            row.user = info.user.empty() ? "?" : printable(info.user);
            row.uid = info.uid;
            row.name = printable(info.comm);
            row.command = rows_command(info);
            row.gpu_memory_bytes = use.memory_bytes;
            row.gpu_utilization_percent = use.utilization_percent;
            if (reading) {
                row.cpu_percent =
                    cpu_percent(before, *reading, seconds, snapshot.clock_ticks_per_second);
                row.host_memory_bytes = reading->rss_bytes;
            }
            row.running_seconds = rows_running_seconds(snapshot, info);
            row.container = rows_container(info);
            row.seen_by = rows_seen_by(use);
            row.observer = process.observer();
            row.hidden = use.known() && !use.seen_by.driver && !row.observer;
            row.orphaned = process.orphaned && !row.observer;
            if (!viewer.privileged && (!info.uid || *info.uid != viewer.uid)) {
                row.actionable = false;
                row.not_actionable_reason =
                    fmt::format("PID {} belongs to {}: only root may signal another user's process",
                                info.pid, row.user);
            }
            rows.push_back(std::move(row));
        }
    }
    for (const Gpu& gpu : snapshot.gpus) {
        if (!gpu.unattributed_memory_bytes || *gpu.unattributed_memory_bytes == 0) continue;
        Row row;
        row.kind = RowKind::unaccounted;
        row.gpu = gpu.index;
        row.user = "-";
        row.name = "(unaccounted)";
        row.command = gpu.process_count == 0
                          ? "memory used and no process holds this GPU: only a reset frees it"
                          : "memory no listed process accounts for";
        row.gpu_memory_bytes = gpu.unattributed_memory_bytes;
        row.seen_by = "-";
        row.actionable = false;
        row.not_actionable_reason = "memory nobody accounts for is no process to signal";
        rows.push_back(std::move(row));
    }
    return rows;
}

std::string format_duration(std::int64_t seconds) {
    if (seconds < 0) seconds = 0;
    if (seconds >= 86400)
        return fmt::format("{}d{:02}h", seconds / 86400, (seconds % 86400) / 3600);
    if (seconds >= 3600) {
        return fmt::format("{}:{:02}:{:02}", seconds / 3600, (seconds % 3600) / 60, seconds % 60);
    }
    return fmt::format("{}:{:02}", seconds / 60, seconds % 60);
}

}  // namespace gpukill::top

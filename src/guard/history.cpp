#include "guard/history.hpp"

#include <algorithm>

#include "history/usage_store.hpp"

namespace gpukill::guard {

std::optional<unsigned> utilization_at_least(const UsagePoint& point) {
    if (point.process_utilization_percent) return point.process_utilization_percent;
    if (point.gpu_process_count == 1) return point.gpu_utilization_percent;
    return std::nullopt;
}

std::optional<unsigned> utilization_at_most(const UsagePoint& point) {
    if (point.process_utilization_percent) return point.process_utilization_percent;
    return point.gpu_utilization_percent;
}

std::vector<std::pair<ProcessGpuKey, UsagePoint>> snapshot_points(const Snapshot& snapshot) {
    std::vector<std::pair<ProcessGpuKey, UsagePoint>> out;
    for (const SnapshotProcess& process : snapshot.processes) {
        if (!process.info_complete || process.observer()) continue;
        for (const ProcessGpuUse& use : process.gpus) {
            UsagePoint point{.time_unix_ms = snapshot.timestamp_unix_ms,
                             .memory_bytes = use.memory_bytes,
                             .process_utilization_percent = use.utilization_percent};
            for (const Gpu& gpu : snapshot.gpus) {
                if (gpu.index != use.gpu_index) continue;
                point.gpu_utilization_percent = gpu.reading.utilization_percent;
                point.gpu_process_count = gpu.process_count;
            }
            out.emplace_back(
                ProcessGpuKey{process.info.pid, process.info.start_time_ticks, use.gpu_index},
                point);
        }
    }
    return out;
}

void History::add(const ProcessGpuKey& key, const UsagePoint& point) {
    std::vector<UsagePoint>& series = points_[key];
    // Samples arrive in time order almost always (one loop, or one store query); a
    // point at a time already held is the same sample seen twice and is dropped.
    auto at = std::lower_bound(
        series.begin(), series.end(), point.time_unix_ms,
        [](const UsagePoint& held, std::int64_t time) { return held.time_unix_ms < time; });
    if (at != series.end() && at->time_unix_ms == point.time_unix_ms) return;
    series.insert(at, point);
}

void History::add_snapshot(const Snapshot& snapshot) {
    for (const auto& [key, point] : snapshot_points(snapshot)) add(key, point);
}

void History::add_samples(std::span<const history::ProcessSample> samples) {
    for (const history::ProcessSample& sample : samples) {
        add(ProcessGpuKey{sample.pid, sample.start_time_ticks, sample.gpu_index},
            UsagePoint{.time_unix_ms = sample.time_unix_ms,
                       .memory_bytes = sample.memory_bytes,
                       .process_utilization_percent = sample.process_utilization_percent,
                       .gpu_utilization_percent = sample.gpu_utilization_percent,
                       .gpu_process_count = sample.gpu_process_count});
    }
}

std::span<const UsagePoint> History::points(const ProcessGpuKey& key) const {
    auto found = points_.find(key);
    if (found == points_.end()) return {};
    return found->second;
}

void History::forget_before(std::int64_t cutoff_unix_ms) {
    for (auto it = points_.begin(); it != points_.end();) {
        std::vector<UsagePoint>& series = it->second;
        std::erase_if(series,
                      [&](const UsagePoint& point) { return point.time_unix_ms < cutoff_unix_ms; });
        it = series.empty() ? points_.erase(it) : std::next(it);
    }
}

}  // namespace gpukill::guard

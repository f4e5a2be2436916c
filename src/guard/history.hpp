// What the guard remembers of each process's GPU use over time: the samples sustained
// rules (stuck, idle) look back over. Filled from the guard loop's own snapshots and,
// where it exists, from the usage store (history::ProcessSample), so a restarted loop
// still sees the minutes before it started. Pure data.
#pragma once

#include <sys/types.h>

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "model/snapshot.hpp"

namespace gpukill::history {
struct ProcessSample;
}

namespace gpukill::guard {

// One process (PID + start time: a PID alone is reused) on one GPU.
struct ProcessGpuKey {
    pid_t pid = 0;
    std::uint64_t start_time_ticks = 0;
    unsigned gpu_index = 0;
    friend auto operator<=>(const ProcessGpuKey&, const ProcessGpuKey&) = default;
};

struct UsagePoint {
    std::int64_t time_unix_ms = 0;
    std::optional<std::uint64_t> memory_bytes;
    // The process's own share of the GPU where the driver reports it (DRM fdinfo).
    std::optional<unsigned> process_utilization_percent;
    std::optional<unsigned> gpu_utilization_percent;  // the whole GPU
    unsigned gpu_process_count = 0;                   // processes on that GPU then
};

// The utilisation a process certainly reached, or empty: its own share, or the GPU's
// when it was the GPU's only process (on a shared GPU the busy one is unknown).
std::optional<unsigned> utilization_at_least(const UsagePoint& point);
// The utilisation a process certainly did not exceed, or empty: its own share, or the
// GPU's (no process uses more of a GPU than the whole GPU).
std::optional<unsigned> utilization_at_most(const UsagePoint& point);

class History {
  public:
    // One point per process-GPU pair of the snapshot (processes with details only).
    void add_snapshot(const Snapshot& snapshot);
    void add_samples(std::span<const history::ProcessSample> samples);
    void add(const ProcessGpuKey& key, const UsagePoint& point);

    // In time order; empty when the pair was never seen.
    std::span<const UsagePoint> points(const ProcessGpuKey& key) const;
    // Forgets points older than `cutoff` and pairs left with none, so a long-running
    // loop holds only the longest window its rules look back over.
    void forget_before(std::int64_t cutoff_unix_ms);
    std::size_t size() const { return points_.size(); }

  private:
    std::map<ProcessGpuKey, std::vector<UsagePoint>> points_;
};

// The points of a snapshot (shared by add_snapshot and the evaluator, which always
// judges the snapshot itself as the newest point).
std::vector<std::pair<ProcessGpuKey, UsagePoint>> snapshot_points(const Snapshot& snapshot);

}  // namespace gpukill::guard

// Per-process GPU usage from DRM fdinfo samples (kernel drm-usage-stats.rst). Pure: the
// samples carry their own timestamps, so every case is tested on fixture values.
//
// Clients are told apart by (pid, drm-pdev, drm-client-id): a process holding several
// fds of one client (dup, fork, SCM_RIGHTS) counts it once. A client shared by several
// processes (inherited over fork) counts in each: each of them holds it. A driver that
// prints no client id leaves dup'd fds indistinguishable from separate clients; such fds
// are combined by maximum, which can under-count but never double-counts.
//
// Per process and GPU:
//   memory       = sum over its clients of client_gpu_memory_bytes (device-local memory).
//   utilisation  = max over engines of the engine's busy share summed over its clients,
//                  capped at 100%. An engine's share between two samples is
//                    delta drm-engine-<e> ns / (delta wall-clock ns * capacity), or
//                    delta drm-cycles-<e> / (delta drm-total-cycles-<e> * capacity) (xe),
//                  and old amdgpu's percentages as printed (no second sample needed).
// Utilisation needs a previous sample of the same client: the tracker keeps the last one.
// A one-shot `gpukill list` has none, so its per-process utilisation is unknown (null);
// `list --watch` keeps one tracker across frames. A counter lower than before is taken
// at its previous, larger value (as the spec asks), so utilisation is never negative.
#pragma once

#include <sys/types.h>

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "host/drm_fdinfo_reader.hpp"

namespace gpukill {

struct DrmProcessUsage {
    pid_t pid = 0;
    std::string pci_bus_id;  // normalised; the GPU's drm-pdev
    std::string driver;      // drm-driver of its first client
    std::optional<std::uint64_t> memory_bytes;
    std::optional<unsigned> utilization_percent;
    friend bool operator==(const DrmProcessUsage&, const DrmProcessUsage&) = default;
};

class DrmUsageTracker {
  public:
    // Usage per (pid, GPU) from one sweep's samples, ordered by pid then bus id; then
    // remembers these samples (only these: clients gone since are forgotten).
    std::vector<DrmProcessUsage> update(const std::vector<DrmClientSample>& samples);

  private:
    struct ClientKey {
        pid_t pid = 0;
        std::string pci_bus_id;
        std::optional<std::uint64_t> client_id;
        int fd = -1;  // only when the driver gives no client id
        auto operator<=>(const ClientKey&) const = default;
    };
    struct EngineCounters {
        std::optional<std::uint64_t> busy_ns;
        std::optional<std::uint64_t> cycles;
        std::optional<std::uint64_t> total_cycles;
    };
    struct ClientCounters {
        std::int64_t monotonic_ns = 0;
        std::map<std::string, EngineCounters> engines;
    };
    std::map<ClientKey, ClientCounters> previous_;
};

}  // namespace gpukill

// The agent's /metrics: one snapshot and the agent's counters rendered in the
// Prometheus text format (0.0.4) or OpenMetrics 1.0, pure (no system calls), so every
// family, label and bound is tested on fixture snapshots. docs/METRICS.md lists them.
//
// Per GPU, every vendor: gpukill_gpu_* with dcgm-exporter's label names (gpu, UUID,
// pci_bus_id, device, modelName), so dashboards built on dcgm-exporter join; with
// dcgm_names, NVIDIA GPUs also get dcgm-exporter's own families (dcgm_metrics.hpp). Every
// series of every family names the host: Hostname or, with lowercase_hostname, hostname.
//
// Per process: gpukill_process_gpu_memory_bytes for the `top_processes` largest holders
// of each GPU; the others are summed into gpukill_gpu_other_processes_memory_bytes and
// counted in gpukill_gpu_other_processes, so a host with ten thousand short jobs still
// gives a bounded number of series per scrape.
//
// Label values come from other users' processes: any bytes. They are written as valid
// UTF-8 (an invalid byte becomes U+FFFD) with \, " and newline escaped, so no process
// name can break the exposition or add a label.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "agent/dcgm_metrics.hpp"
#include "agent/exposition.hpp"
#include "engine/engine.hpp"
#include "model/snapshot.hpp"

namespace gpukill::agent {

// What the agent counted since it started (monotonic; Prometheus counters).
struct AgentCounters {
    // Guard decisions by verdict ("warn", "terminate", ...) and actions by verdict and
    // outcome ("terminate", "terminated"), dry-run actions under outcome "dry_run".
    std::map<std::string, std::uint64_t> guard_decisions;
    std::map<std::pair<std::string, std::string>, std::uint64_t> guard_actions;
    // Processes that ended after gpukill signalled them, and the GPU memory that came
    // back, by interface ("agent" for API kills and resets, "guard").
    std::map<std::string, std::uint64_t> processes_ended;
    std::map<std::string, std::uint64_t> reclaimed_bytes;
    std::uint64_t samples = 0;
    std::uint64_t policy_reload_failures = 0;
    // API requests answered, by status code.
    std::map<int, std::uint64_t> http_requests;
};

// The last rogue scan: findings by risk level ("low" ... "critical").
struct RogueCounts {
    bool scanned = false;
    std::map<std::string, std::uint64_t> findings_by_risk;
};

struct MetricsInputs {
    const Snapshot* snapshot = nullptr;
    const AgentCounters* counters = nullptr;
    RogueCounts rogue;
    double last_sample_seconds = 0;  // how long the last sample took
    std::uint64_t heap_bytes = 0;    // the agent's own heap in use (host/heap_in_use.hpp)
    bool guard_enabled = false;
    // Whether holders are tracked from kernel events (host/holder_tracker.hpp); empty
    // until the engine has tried (its second sample).
    std::optional<engine::Engine::HolderTracking> holder_tracking;
    std::string version;  // gpukill's, on gpukill_agent_info
};

struct MetricsOptions {
    std::size_t top_processes = 10;  // per GPU; the rest is aggregated
    bool dcgm_names = false;
    bool lowercase_hostname = false;
    bool openmetrics = false;  // OpenMetrics 1.0 (counters' TYPE without _total, # EOF)
    // Unaccounted memory above which a GPU nobody holds is soft-locked (as `check`).
    std::uint64_t soft_lock_bytes = 256ULL << 20;
};

std::string render_metrics(const MetricsInputs& inputs, const MetricsOptions& options);

// The content types of the two formats.
inline constexpr const char* kPrometheusTextType = "text/plain; version=0.0.4; charset=utf-8";
inline constexpr const char* kOpenMetricsType =
    "application/openmetrics-text; version=1.0.0; charset=utf-8";

// Whether an Accept header asks for OpenMetrics (what Prometheus sends when it prefers it).
bool accepts_openmetrics(std::string_view accept);

}  // namespace gpukill::agent

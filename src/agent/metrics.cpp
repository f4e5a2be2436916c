#include "agent/metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "agent/dcgm_metrics.hpp"
#include "agent/exposition.hpp"

namespace gpukill::agent {
namespace {

bool tied_here(const SnapshotProcess& process, unsigned gpu, const ProcessGpuUse** use) {
    // An observer (a monitoring client, this agent among them) is no holder: counting it
    // would make every node look held by hidden holders.
    if (process.observer()) return false;
    for (const ProcessGpuUse& candidate : process.gpus) {
        if (candidate.gpu_index == gpu && candidate.known()) {
            *use = &candidate;
            return true;
        }
    }
    return false;
}

struct GpuFamilies {
    MetricFamily* info;
    MetricFamily* used;
    MetricFamily* total;
    MetricFamily* util;
    MetricFamily* temp;
    MetricFamily* power;
    MetricFamily* energy;
    MetricFamily* unaccounted;
    MetricFamily* soft_locked;
    MetricFamily* lost;
    MetricFamily* holders;
    MetricFamily* file_only;
    MetricFamily* orphaned;
    MetricFamily* process_memory;
    MetricFamily* other_memory;
    MetricFamily* other_count;
};

void gpu_metrics(Exposition& out, const Snapshot& snapshot, const MetricsOptions& options) {
    // Families are declared first and filled GPU by GPU: each family's samples stay
    // together, as both formats require.
    GpuFamilies f{};
    f.info = &out.family("gpukill_gpu_info", "gauge",
                         "A GPU gpukill sees (always 1), with its vendor, backend and driver");
    f.used = &out.family("gpukill_gpu_memory_used_bytes", "gauge", "GPU memory in use");
    f.total = &out.family("gpukill_gpu_memory_total_bytes", "gauge", "GPU memory in all");
    f.util = &out.family("gpukill_gpu_utilization_ratio", "gauge",
                         "Share of time the GPU's engines were busy (0 to 1)");
    f.temp = &out.family("gpukill_gpu_temperature_celsius", "gauge", "GPU temperature");
    f.power = &out.family("gpukill_gpu_power_watts", "gauge", "GPU power draw");
    f.energy = &out.family("gpukill_gpu_energy_joules", "counter",
                           "Energy the GPU has used, by its own counter (rate() gives watts)");
    f.unaccounted = &out.family("gpukill_gpu_memory_unaccounted_bytes", "gauge",
                                "GPU memory in use that no listed process accounts for");
    f.soft_locked = &out.family("gpukill_gpu_soft_locked", "gauge",
                                "1 when memory is in use and no process holds the GPU");
    f.lost = &out.family("gpukill_gpu_lost", "gauge", "1 when the GPU has fallen off the bus");
    f.holders = &out.family("gpukill_gpu_processes", "gauge", "Processes holding the GPU");
    f.file_only = &out.family("gpukill_gpu_file_only_holders", "gauge",
                              "Processes holding the GPU's device file that the driver does not "
                              "list");
    f.orphaned = &out.family("gpukill_gpu_orphaned_holders", "gauge",
                             "Processes holding the GPU whose parent died");
    f.process_memory = &out.family("gpukill_process_gpu_memory_bytes", "gauge",
                                   "GPU memory a process holds (the largest holders of each GPU)");
    f.other_memory = &out.family("gpukill_gpu_other_processes_memory_bytes", "gauge",
                                 "GPU memory held by the processes beyond the largest ones shown");
    f.other_count = &out.family("gpukill_gpu_other_processes", "gauge",
                                "Processes with GPU memory beyond the largest ones shown");

    for (const Gpu& gpu : snapshot.gpus) {
        const GpuReading& r = gpu.reading;
        const Labels labels = gpu_labels(gpu);
        Labels info = labels;
        info.emplace_back("vendor", to_string(r.vendor));
        info.emplace_back("backend", r.backend);
        info.emplace_back("driver_version", r.driver_version.value_or(""));
        out.sample(*f.info, info, std::uint64_t{1});
        if (r.memory_used_bytes) out.sample(*f.used, labels, *r.memory_used_bytes);
        if (r.memory_total_bytes) out.sample(*f.total, labels, *r.memory_total_bytes);
        if (r.utilization_percent) out.sample(*f.util, labels, *r.utilization_percent / 100.0);
        if (r.temperature_celsius) {
            out.sample(*f.temp, labels, static_cast<double>(*r.temperature_celsius));
        }
        if (r.power_watts) out.sample(*f.power, labels, *r.power_watts);
        if (r.energy_joules) out.sample(*f.energy, labels, *r.energy_joules);
        if (gpu.unattributed_memory_bytes) {
            out.sample(*f.unaccounted, labels, *gpu.unattributed_memory_bytes);
        }
        out.sample(*f.lost, labels, std::uint64_t{r.lost ? 1u : 0u});

        struct Holder {
            const SnapshotProcess* process;
            std::uint64_t memory;
        };
        std::vector<Holder> with_memory;
        std::uint64_t holders = 0, file_only = 0, orphaned = 0;
        for (const SnapshotProcess& process : snapshot.processes) {
            const ProcessGpuUse* use = nullptr;
            if (!tied_here(process, gpu.index, &use)) continue;
            ++holders;
            if (use->seen_by.device_file && !use->seen_by.driver) ++file_only;
            if (process.orphaned) ++orphaned;
            if (use->memory_bytes) with_memory.push_back({&process, *use->memory_bytes});
        }
        const bool soft_locked = holders == 0 && gpu.unattributed_memory_bytes &&
                                 *gpu.unattributed_memory_bytes > options.soft_lock_bytes;
        out.sample(*f.soft_locked, labels, std::uint64_t{soft_locked ? 1u : 0u});
        out.sample(*f.holders, labels, holders);
        out.sample(*f.file_only, labels, file_only);
        out.sample(*f.orphaned, labels, orphaned);

        std::sort(with_memory.begin(), with_memory.end(), [](const Holder& a, const Holder& b) {
            if (a.memory != b.memory) return a.memory > b.memory;
            return a.process->info.pid < b.process->info.pid;
        });
        const std::size_t shown = std::min(with_memory.size(), options.top_processes);
        for (std::size_t i = 0; i < shown; ++i) {
            const ProcessInfo& p = with_memory[i].process->info;
            const std::optional<ContainerInfo>& c = p.container;
            out.sample(
                *f.process_memory,
                Labels{{"gpu", std::to_string(gpu.index)},
                       {"UUID", r.uuid.value_or("")},
                       {"pid", std::to_string(p.pid)},
                       {"user", p.user},
                       {"name", p.comm},
                       // dcgm-exporter's names: the pod's and the container's in it.
                       {"pod", c && c->pod_name ? *c->pod_name : std::string()},
                       {"namespace", c && c->pod_namespace ? *c->pod_namespace : std::string()},
                       {"container", c && c->container_name ? *c->container_name : std::string()},
                       {"container_id", c ? c->id : std::string()},
                       {"pod_uid", c && c->pod_uid ? *c->pod_uid : std::string()}},
                with_memory[i].memory);
        }
        std::uint64_t rest = 0;
        for (std::size_t i = shown; i < with_memory.size(); ++i) rest += with_memory[i].memory;
        const Labels short_labels{{"gpu", std::to_string(gpu.index)},
                                  {"UUID", r.uuid.value_or("")}};
        out.sample(*f.other_memory, short_labels, rest);
        out.sample(*f.other_count, short_labels,
                   static_cast<std::uint64_t>(with_memory.size() - shown));
    }
}

template <class Key, class Make>
void counter_family(Exposition& out, std::string name, std::string help,
                    const std::map<Key, std::uint64_t>& values, Make labels) {
    MetricFamily& family = out.family(std::move(name), "counter", std::move(help));
    for (const auto& [key, value] : values) out.sample(family, labels(key), value);
}

void agent_metrics(Exposition& out, const MetricsInputs& in) {
    MetricFamily& info = out.family("gpukill_agent_info", "gauge", "The agent (always 1)");
    out.sample(info, Labels{{"version", in.version}}, std::uint64_t{1});
    MetricFamily& duration = out.family("gpukill_agent_sample_duration_seconds", "gauge",
                                        "How long the last sample of the host took");
    out.sample(duration, {}, in.last_sample_seconds);
    MetricFamily& heap = out.family("gpukill_agent_heap_bytes", "gauge",
                                    "Heap memory the agent holds (allocated, not yet freed)");
    out.sample(heap, {}, in.heap_bytes);
    MetricFamily& guard =
        out.family("gpukill_agent_guard_enabled", "gauge", "1 when the agent runs a guard policy");
    out.sample(guard, {}, std::uint64_t{in.guard_enabled ? 1u : 0u});
    if (in.holder_tracking) {
        MetricFamily& tracking = out.family(
            "gpukill_agent_holder_tracking", "gauge",
            "1 when device holders are kept from kernel events; 0 when every sample sweeps /proc");
        out.sample(tracking, {}, std::uint64_t{in.holder_tracking->tracking ? 1u : 0u});
        if (in.holder_tracking->tracking) {
            MetricFamily& overflows = out.family(
                "gpukill_agent_holder_event_overflows", "counter",
                "Samples on which the kernel dropped process or open events (a busy node)");
            out.sample(overflows, {}, std::uint64_t{in.holder_tracking->overflows});
            MetricFamily& repairs = out.family(
                "gpukill_agent_holder_event_repairs", "counter",
                "Samples after lost process events repaired by rescanning the holders and the "
                "processes started since, not by a full sweep");
            out.sample(repairs, {}, std::uint64_t{in.holder_tracking->repairs});
            MetricFamily& sweeps =
                out.family("gpukill_agent_holder_full_sweeps", "counter",
                           "Full sweeps of every process's descriptors while tracking (the "
                           "periodic safety net, and lost opens)");
            out.sample(sweeps, {}, std::uint64_t{in.holder_tracking->full_sweeps});
        }
    }
    if (in.rogue.scanned) {
        MetricFamily& rogue = out.family("gpukill_rogue_findings", "gauge",
                                         "Rogue (miner) findings of the last scan, by risk level");
        for (const char* risk : {"low", "medium", "high", "critical"}) {
            auto found = in.rogue.findings_by_risk.find(risk);
            out.sample(rogue, Labels{{"risk", risk}},
                       found == in.rogue.findings_by_risk.end() ? 0 : found->second);
        }
    }
    if (in.counters == nullptr) return;
    const AgentCounters& c = *in.counters;
    MetricFamily& samples =
        out.family("gpukill_agent_samples", "counter", "Samples of the host taken");
    out.sample(samples, {}, c.samples);
    MetricFamily& reloads = out.family("gpukill_agent_policy_reload_failures", "counter",
                                       "New guard policies refused (the previous one stayed)");
    out.sample(reloads, {}, c.policy_reload_failures);
    counter_family(out, "gpukill_guard_decisions", "Guard decisions, by verdict", c.guard_decisions,
                   [](const std::string& verdict) {
                       return Labels{{"verdict", verdict}};
                   });
    counter_family(out, "gpukill_guard_actions", "Guard actions, by verdict and outcome",
                   c.guard_actions, [](const std::pair<std::string, std::string>& key) {
                       return Labels{{"verdict", key.first}, {"outcome", key.second}};
                   });
    counter_family(out, "gpukill_processes_ended",
                   "Processes that ended after gpukill signalled them", c.processes_ended,
                   [](const std::string& via) {
                       return Labels{{"interface", via}};
                   });
    counter_family(out, "gpukill_reclaimed_bytes", "GPU memory that came back after gpukill acted",
                   c.reclaimed_bytes, [](const std::string& via) {
                       return Labels{{"interface", via}};
                   });
    counter_family(out, "gpukill_agent_http_requests", "API requests answered, by status code",
                   c.http_requests, [](int code) {
                       return Labels{{"code", std::to_string(code)}};
                   });
}

}  // namespace

bool accepts_openmetrics(std::string_view accept) {
    return accept.find("application/openmetrics-text") != std::string_view::npos;
}

std::string render_metrics(const MetricsInputs& inputs, const MetricsOptions& options) {
    const std::string host = inputs.snapshot != nullptr ? inputs.snapshot->host : std::string();
    Exposition out(options.openmetrics,
                   {options.lowercase_hostname ? "hostname" : "Hostname", host});
    if (inputs.snapshot != nullptr) {
        gpu_metrics(out, *inputs.snapshot, options);
        if (options.dcgm_names) dcgm_metrics(out, *inputs.snapshot);
    }
    agent_metrics(out, inputs);
    return out.text();
}

}  // namespace gpukill::agent

#include "agent/metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <deque>
#include <vector>

#include "model/utf8.hpp"

namespace gpukill::agent {
namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

// One metric family: its metadata and sample lines, written in either format.
struct MetricFamily {
    std::string name;  // without _total; counters' samples carry it
    const char* type = "gauge";
    std::string help;
    // False for a foreign counter whose exporter names it without _total (dcgm-exporter's
    // energy): its name is kept, and OpenMetrics, which requires the suffix, calls it unknown.
    bool total_suffix = true;
    std::vector<std::string> samples;  // "name{labels} value" lines, without newline
};

std::string labels_text(const Labels& labels) {
    if (labels.empty()) return {};
    std::string text = "{";
    for (std::size_t i = 0; i < labels.size(); ++i) {
        if (i > 0) text += ',';
        text += labels[i].first;
        text += "=\"";
        text += escape_label_value(labels[i].second);
        text += '"';
    }
    text += '}';
    return text;
}

std::string number_text(double value) {
    return fmt::format("{}", value);
}
std::string number_text(std::uint64_t value) {
    return std::to_string(value);
}

class Exposition {
  public:
    explicit Exposition(bool openmetrics) : openmetrics_(openmetrics) {}

    MetricFamily& family(std::string name, const char* type, std::string help,
                         bool total_suffix = true) {
        families_.push_back(MetricFamily{std::move(name), type, std::move(help), total_suffix, {}});
        return families_.back();
    }
    template <class Value>
    void sample(MetricFamily& family, const Labels& labels, Value value) {
        family.samples.push_back(family.name + (suffixed(family) ? "_total" : "") +
                                 labels_text(labels) + " " + number_text(value));
    }

    std::string text() const {
        std::string out;
        for (const MetricFamily& family : families_) {
            if (family.samples.empty()) continue;
            // The text format names a counter family by its samples' name; OpenMetrics by
            // the name without _total.
            const std::string declared =
                family.name + (suffixed(family) && !openmetrics_ ? "_total" : std::string());
            const bool foreign_counter = is_counter(family) && !family.total_suffix;
            out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", declared, family.help, declared,
                               foreign_counter && openmetrics_ ? "unknown" : family.type);
            for (const std::string& line : family.samples) {
                out += line;
                out += '\n';
            }
        }
        if (openmetrics_) out += "# EOF\n";
        return out;
    }

  private:
    static bool is_counter(const MetricFamily& family) {
        return std::string_view(family.type) == "counter";
    }
    static bool suffixed(const MetricFamily& family) {
        return is_counter(family) && family.total_suffix;
    }

    bool openmetrics_;
    std::deque<MetricFamily> families_;  // a deque: references to earlier ones stay valid
};

std::string device_name(const GpuReading& reading) {
    if (reading.vendor == Vendor::nvidia && reading.nvidia_minor) {
        return fmt::format("nvidia{}", *reading.nvidia_minor);
    }
    if (reading.drm_card) return *reading.drm_card;
    return {};
}

Labels gpu_labels(const Gpu& gpu, const std::string& host, const MetricsOptions& options) {
    const GpuReading& r = gpu.reading;
    std::string bus = r.pci_bus_id.value_or("");
    if (r.vendor == Vendor::nvidia && !bus.empty()) bus = nvml_pci_bus_id(bus);
    return Labels{{"gpu", std::to_string(gpu.index)},
                  {"UUID", r.uuid.value_or("")},
                  {"pci_bus_id", bus},
                  {"device", device_name(r)},
                  {"modelName", r.name.value_or("")},
                  {options.lowercase_hostname ? "hostname" : "Hostname", host}};
}

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
        const Labels labels = gpu_labels(gpu, snapshot.host, options);
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
                       {"container", c ? c->id : std::string()},
                       {"pod", c && c->pod_uid ? *c->pod_uid : std::string()},
                       {"namespace", c && c->pod_namespace ? *c->pod_namespace : std::string()}},
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

// dcgm-exporter's families, for NVIDIA GPUs: its names, units and types.
void dcgm_metrics(Exposition& out, const Snapshot& snapshot, const MetricsOptions& options) {
    MetricFamily& fb =
        out.family("DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).");
    MetricFamily& util = out.family("DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).");
    MetricFamily& temp = out.family("DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).");
    MetricFamily& power = out.family("DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).");
    MetricFamily& energy =
        out.family("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter",
                   "Total energy consumption since boot (in mJ).", /*total_suffix=*/false);
    for (const Gpu& gpu : snapshot.gpus) {
        const GpuReading& r = gpu.reading;
        if (r.vendor != Vendor::nvidia) continue;
        const Labels labels = gpu_labels(gpu, snapshot.host, options);
        if (r.memory_used_bytes) out.sample(fb, labels, *r.memory_used_bytes >> 20);
        if (r.utilization_percent) {
            out.sample(util, labels, static_cast<std::uint64_t>(*r.utilization_percent));
        }
        if (r.temperature_celsius) {
            out.sample(temp, labels, static_cast<double>(*r.temperature_celsius));
        }
        if (r.power_watts) out.sample(power, labels, *r.power_watts);
        if (r.energy_joules) {
            out.sample(energy, labels,
                       static_cast<std::uint64_t>(std::llround(*r.energy_joules * 1000.0)));
        }
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

std::string escape_label_value(std::string_view value) {
    std::string out;
    out.reserve(value.size());
    for (std::size_t at = 0; at < value.size();) {
        const Utf8Char c = next_utf8(value, at);
        if (!c.valid) {
            out += "\xEF\xBF\xBD";  // U+FFFD
        } else if (c.length == 1 && value[at] == '\\') {
            out += "\\\\";
        } else if (c.length == 1 && value[at] == '"') {
            out += "\\\"";
        } else if (c.length == 1 && value[at] == '\n') {
            out += "\\n";
        } else {
            out.append(value.substr(at, c.length));
        }
        at += c.length;
    }
    return out;
}

std::string nvml_pci_bus_id(std::string_view normalised) {
    // "0000:3b:00.0" -> "00000000:3B:00.0": the domain widened to 8 digits, upper case.
    const std::size_t colon = normalised.find(':');
    if (colon == std::string_view::npos) return std::string(normalised);
    std::string domain(normalised.substr(0, colon));
    if (domain.size() < 8) domain.insert(0, 8 - domain.size(), '0');
    std::string out = domain + std::string(normalised.substr(colon));
    for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

bool accepts_openmetrics(std::string_view accept) {
    return accept.find("application/openmetrics-text") != std::string_view::npos;
}

std::string render_metrics(const MetricsInputs& inputs, const MetricsOptions& options) {
    Exposition out(options.openmetrics);
    if (inputs.snapshot != nullptr) {
        gpu_metrics(out, *inputs.snapshot, options);
        if (options.dcgm_names) dcgm_metrics(out, *inputs.snapshot, options);
    }
    agent_metrics(out, inputs);
    return out.text();
}

}  // namespace gpukill::agent

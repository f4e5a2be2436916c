#include "agent/dcgm_metrics.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <string_view>

namespace gpukill::agent {
namespace {

std::string device_name(const GpuReading& reading) {
    if (reading.vendor == Vendor::nvidia && reading.nvidia_minor) {
        return fmt::format("nvidia{}", *reading.nvidia_minor);
    }
    if (reading.drm_card) return *reading.drm_card;
    return {};
}

constexpr std::string_view kFbUsed = "DCGM_FI_DEV_FB_USED";

std::uint64_t mebibytes(std::uint64_t bytes) {
    return bytes >> 20;
}

// One of dcgm-exporter's families: its name and help, and the reading it shows (empty
// where the GPU does not report it: no sample, as dcgm-exporter skips a blank field).
struct DcgmFamily {
    const char* name;
    const char* help;
    std::function<std::optional<double>(const GpuReading&)> value;
};

template <class T>
std::optional<double> as_number(const std::optional<T>& value) {
    if (!value) return std::nullopt;
    return static_cast<double>(*value);
}

const std::vector<DcgmFamily>& dcgm_families() {
    // In default-counters.csv's order. "counter" there for TOTAL_ENERGY_CONSUMPTION,
    // PCIE_REPLAY_COUNTER, NVLINK_BANDWIDTH_TOTAL and the remapped rows: declared gauge
    // here (the header says why).
    static const std::vector<DcgmFamily> families = {
        {"DCGM_FI_DEV_SM_CLOCK", "SM clock frequency (in MHz).",
         [](const GpuReading& r) { return as_number(r.sm_clock_mhz); }},
        {"DCGM_FI_DEV_MEM_CLOCK", "Memory clock frequency (in MHz).",
         [](const GpuReading& r) { return as_number(r.memory_clock_mhz); }},
        {"DCGM_FI_DEV_MEMORY_TEMP", "Memory temperature (in C).",
         [](const GpuReading& r) { return as_number(r.memory_temperature_celsius); }},
        {"DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).",
         [](const GpuReading& r) { return as_number(r.temperature_celsius); }},
        {"DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).",
         [](const GpuReading& r) { return r.power_watts; }},
        {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
         "Total energy consumption since the driver loaded (in mJ; a counter, declared gauge "
         "to keep dcgm-exporter's name).",
         [](const GpuReading& r) -> std::optional<double> {
             if (!r.energy_joules) return std::nullopt;
             return static_cast<double>(std::llround(*r.energy_joules * 1000.0));
         }},
        {"DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "Total number of PCIe retries.",
         [](const GpuReading& r) { return as_number(r.pcie_replay_count); }},
        {"DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).",
         [](const GpuReading& r) { return as_number(r.utilization_percent); }},
        {"DCGM_FI_DEV_MEM_COPY_UTIL", "Memory utilization (in %).",
         [](const GpuReading& r) { return as_number(r.memory_utilization_percent); }},
        {"DCGM_FI_DEV_ENC_UTIL", "Encoder utilization (in %).",
         [](const GpuReading& r) { return as_number(r.encoder_utilization_percent); }},
        {"DCGM_FI_DEV_DEC_UTIL", "Decoder utilization (in %).",
         [](const GpuReading& r) { return as_number(r.decoder_utilization_percent); }},
        {"DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB).",
         [](const GpuReading& r) -> std::optional<double> {
             if (!r.memory_free_bytes) return std::nullopt;
             return static_cast<double>(mebibytes(*r.memory_free_bytes));
         }},
        {"DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).",
         [](const GpuReading& r) -> std::optional<double> {
             if (!r.memory_used_bytes) return std::nullopt;
             return static_cast<double>(mebibytes(*r.memory_used_bytes));
         }},
        {"DCGM_FI_DEV_FB_RESERVED", "Framebuffer memory reserved (in MiB).",
         [](const GpuReading& r) -> std::optional<double> {
             if (!r.memory_reserved_bytes) return std::nullopt;
             return static_cast<double>(mebibytes(*r.memory_reserved_bytes));
         }},
        {"DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL",
         "Total NVLink data sent and received over all links since the driver loaded (in KiB).",
         [](const GpuReading& r) { return as_number(r.nvlink_data_kib); }},
        {"DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
         "Number of remapped rows for uncorrectable errors",
         [](const GpuReading& r) { return as_number(r.remapped_rows_uncorrectable); }},
        {"DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", "Number of remapped rows for correctable errors",
         [](const GpuReading& r) { return as_number(r.remapped_rows_correctable); }},
        {"DCGM_FI_DEV_ROW_REMAP_FAILURE", "Whether remapping of rows has failed",
         [](const GpuReading& r) -> std::optional<double> {
             if (!r.row_remap_failed) return std::nullopt;
             return *r.row_remap_failed ? 1.0 : 0.0;
         }},
    };
    return families;
}

// A Kubernetes container using a GPU, as dcgm-exporter's --kubernetes mode names it.
struct PodContainer {
    std::string pod;
    std::string pod_namespace;
    std::string container;
    auto operator<=>(const PodContainer&) const = default;
};

// The containers of pods whose workloads are tied to `gpu` (observers left out), each
// with the memory they hold on it; only holders whose pod's name is known.
std::map<PodContainer, std::uint64_t> pods_on(const Snapshot& snapshot, const Gpu& gpu) {
    std::map<PodContainer, std::uint64_t> pods;
    for (const SnapshotProcess& process : snapshot.processes) {
        const std::optional<ContainerInfo>& c = process.info.container;
        if (process.observer() || !c || !c->pod_name) continue;
        for (const ProcessGpuUse& use : process.gpus) {
            if (use.gpu_index != gpu.index || !use.known()) continue;
            pods[PodContainer{*c->pod_name, c->pod_namespace.value_or(""),
                              c->container_name.value_or("")}] += use.memory_bytes.value_or(0);
        }
    }
    return pods;
}

void add_pod_labels(Labels& labels, const PodContainer& pod) {
    labels.emplace_back("pod", pod.pod);
    labels.emplace_back("namespace", pod.pod_namespace);
    labels.emplace_back("container", pod.container);
}

}  // namespace

Labels gpu_labels(const Gpu& gpu) {
    const GpuReading& r = gpu.reading;
    std::string bus = r.pci_bus_id.value_or("");
    if (r.vendor == Vendor::nvidia && !bus.empty()) bus = nvml_pci_bus_id(bus);
    return Labels{{"gpu", std::to_string(gpu.index)},
                  {"UUID", r.uuid.value_or("")},
                  {"pci_bus_id", bus},
                  {"device", device_name(r)},
                  {"modelName", r.name.value_or("")}};
}

void dcgm_metrics(Exposition& out, const Snapshot& snapshot) {
    std::vector<MetricFamily*> declared;
    for (const DcgmFamily& family : dcgm_families()) {
        declared.push_back(&out.family(family.name, "gauge", family.help));
    }
    for (const Gpu& gpu : snapshot.gpus) {
        const GpuReading& r = gpu.reading;
        if (r.vendor != Vendor::nvidia) continue;
        Labels labels = gpu_labels(gpu);
        // As dcgm-exporter's --kubernetes mode: a GPU one pod's container uses carries
        // that pod's names on every series. A GPU several share keeps its own series
        // unnamed, and its memory in use is also given per container (dcgm-exporter's
        // per-process FB_USED), so no sum counts the device twice.
        const std::map<PodContainer, std::uint64_t> pods = pods_on(snapshot, gpu);
        if (pods.size() == 1) add_pod_labels(labels, pods.begin()->first);
        // dcgm-exporter's one "label" counter: the driver on every series.
        if (r.driver_version) labels.emplace_back("DCGM_FI_DRIVER_VERSION", *r.driver_version);
        for (std::size_t i = 0; i < declared.size(); ++i) {
            const std::optional<double> value = dcgm_families()[i].value(r);
            if (!value) continue;
            // Whole numbers stay whole: counts and MiB read as dcgm-exporter writes them.
            if (*value >= 0 && *value < 1e18 && std::floor(*value) == *value) {
                out.sample(*declared[i], labels, static_cast<std::uint64_t>(*value));
            } else {
                out.sample(*declared[i], labels, *value);
            }
            if (pods.size() > 1 && std::string_view(dcgm_families()[i].name) == kFbUsed) {
                for (const auto& [pod, bytes] : pods) {
                    Labels per_pod = gpu_labels(gpu);
                    add_pod_labels(per_pod, pod);
                    if (r.driver_version) {
                        per_pod.emplace_back("DCGM_FI_DRIVER_VERSION", *r.driver_version);
                    }
                    out.sample(*declared[i], per_pod, mebibytes(bytes));
                }
            }
        }
    }
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

}  // namespace gpukill::agent

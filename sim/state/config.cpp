#include "state/config.hpp"

#include <nlohmann/json.hpp>

namespace gpusim {

namespace {

using nlohmann::json;

constexpr int kSchema = 1;

// A metric is stored as its value, or as the name of its failure ("not_supported").
template <class T>
json metric_to_json(const Metric<T>& metric) {
    if (!metric.ok()) return std::string(failure_name(metric.failure));
    return metric.value;
}

template <class T>
Metric<T> metric_from_json(const json& value) {
    if (value.is_string()) {
        const Failure failure = failure_from_name(value.get<std::string>());
        if (failure == Failure::none)
            throw std::invalid_argument("unknown failure " + value.dump());
        return Metric<T>{T{}, failure};
    }
    return Metric<T>{value.get<T>(), Failure::none};
}

json gpu_to_json(const GpuSpec& gpu) {
    return json{
        {"name", gpu.name},
        {"uuid", gpu.uuid},
        {"pci_bus_id", gpu.pci_bus_id},
        {"minor", gpu.minor},
        {"pci_device_id", gpu.pci_device_id},
        {"pci_subsystem_id", gpu.pci_subsystem_id},
        {"memory_total_bytes", gpu.memory_total_bytes},
        {"memory_reserved_bytes", gpu.memory_reserved_bytes},
        {"base_utilization_percent", metric_to_json(gpu.base_utilization_percent)},
        {"temperature_celsius", metric_to_json(gpu.temperature_celsius)},
        {"power_watts", metric_to_json(gpu.power_watts)},
        {"power_limit_watts", metric_to_json(gpu.power_limit_watts)},
        {"persistence_mode", metric_to_json(gpu.persistence_mode)},
        {"mig_mode", metric_to_json(gpu.mig_mode)},
        {"ecc_errors_corrected", metric_to_json(gpu.ecc_errors_corrected)},
        {"ecc_errors_uncorrected", metric_to_json(gpu.ecc_errors_uncorrected)},
        {"memory_info_failure", failure_name(gpu.memory_info_failure)},
        {"processes_failure", failure_name(gpu.processes_failure)},
        {"memory_not_available", gpu.memory_not_available},
        {"lost", gpu.lost},
        {"architecture", metric_to_json(gpu.architecture)},
        {"nvlink_remote_bus_ids",
         gpu.nvlink_remote_bus_ids ? json(*gpu.nvlink_remote_bus_ids) : json(nullptr)},
        {"reset_failure", failure_name(gpu.reset_failure)},
        {"sm_clock_mhz", metric_to_json(gpu.sm_clock_mhz)},
        {"memory_clock_mhz", metric_to_json(gpu.memory_clock_mhz)},
        {"memory_temperature_celsius", metric_to_json(gpu.memory_temperature_celsius)},
        {"pcie_replay_count", metric_to_json(gpu.pcie_replay_count)},
        {"encoder_utilization_percent", metric_to_json(gpu.encoder_utilization_percent)},
        {"decoder_utilization_percent", metric_to_json(gpu.decoder_utilization_percent)},
        {"remapped_rows_correctable", metric_to_json(gpu.remapped_rows_correctable)},
        {"remapped_rows_uncorrectable", metric_to_json(gpu.remapped_rows_uncorrectable)},
        {"row_remap_failure", metric_to_json(gpu.row_remap_failure)},
    };
}

GpuSpec gpu_from_json(const json& in) {
    GpuSpec gpu;
    gpu.name = in.at("name").get<std::string>();
    gpu.uuid = in.at("uuid").get<std::string>();
    gpu.pci_bus_id = in.at("pci_bus_id").get<std::string>();
    gpu.minor = in.at("minor").get<unsigned>();
    gpu.pci_device_id = in.at("pci_device_id").get<unsigned>();
    gpu.pci_subsystem_id = in.at("pci_subsystem_id").get<unsigned>();
    gpu.memory_total_bytes = in.at("memory_total_bytes").get<std::uint64_t>();
    gpu.memory_reserved_bytes = in.at("memory_reserved_bytes").get<std::uint64_t>();
    gpu.base_utilization_percent = metric_from_json<unsigned>(in.at("base_utilization_percent"));
    gpu.temperature_celsius = metric_from_json<unsigned>(in.at("temperature_celsius"));
    gpu.power_watts = metric_from_json<double>(in.at("power_watts"));
    gpu.power_limit_watts = metric_from_json<double>(in.at("power_limit_watts"));
    gpu.persistence_mode = metric_from_json<bool>(in.at("persistence_mode"));
    gpu.mig_mode = metric_from_json<bool>(in.at("mig_mode"));
    gpu.ecc_errors_corrected = metric_from_json<std::uint64_t>(in.at("ecc_errors_corrected"));
    gpu.ecc_errors_uncorrected = metric_from_json<std::uint64_t>(in.at("ecc_errors_uncorrected"));
    gpu.memory_info_failure = failure_from_name(in.at("memory_info_failure").get<std::string>());
    gpu.processes_failure = failure_from_name(in.at("processes_failure").get<std::string>());
    gpu.memory_not_available = in.at("memory_not_available").get<bool>();
    gpu.lost = in.at("lost").get<bool>();
    gpu.architecture = metric_from_json<unsigned>(in.at("architecture"));
    if (const json& links = in.at("nvlink_remote_bus_ids"); !links.is_null()) {
        gpu.nvlink_remote_bus_ids = links.get<std::vector<std::string>>();
    }
    gpu.reset_failure = failure_from_name(in.at("reset_failure").get<std::string>());
    gpu.sm_clock_mhz = metric_from_json<unsigned>(in.at("sm_clock_mhz"));
    gpu.memory_clock_mhz = metric_from_json<unsigned>(in.at("memory_clock_mhz"));
    gpu.memory_temperature_celsius =
        metric_from_json<unsigned>(in.at("memory_temperature_celsius"));
    gpu.pcie_replay_count = metric_from_json<std::uint64_t>(in.at("pcie_replay_count"));
    gpu.encoder_utilization_percent =
        metric_from_json<unsigned>(in.at("encoder_utilization_percent"));
    gpu.decoder_utilization_percent =
        metric_from_json<unsigned>(in.at("decoder_utilization_percent"));
    gpu.remapped_rows_correctable =
        metric_from_json<std::uint64_t>(in.at("remapped_rows_correctable"));
    gpu.remapped_rows_uncorrectable =
        metric_from_json<std::uint64_t>(in.at("remapped_rows_uncorrectable"));
    gpu.row_remap_failure = metric_from_json<bool>(in.at("row_remap_failure"));
    return gpu;
}

}  // namespace

std::string_view failure_name(Failure failure) {
    switch (failure) {
        case Failure::none:
            return "none";
        case Failure::not_supported:
            return "not_supported";
        case Failure::no_permission:
            return "no_permission";
        case Failure::unknown:
            return "unknown";
    }
    return "none";
}

Failure failure_from_name(std::string_view name) {
    if (name == "not_supported") return Failure::not_supported;
    if (name == "no_permission") return Failure::no_permission;
    if (name == "unknown") return Failure::unknown;
    return Failure::none;
}

json config_to_json(const SimConfig& config) {
    json gpus = json::array();
    for (const GpuSpec& gpu : config.gpus) gpus.push_back(gpu_to_json(gpu));
    return json{
        {"schema", kSchema},
        {"driver",
         {{"version", config.driver.version},
          {"nvml_version", config.driver.nvml_version},
          {"cuda_version", config.driver.cuda_version},
          {"legacy", config.driver.legacy}}},
        {"gpus", std::move(gpus)},
        {"drm_gpus", drm_gpus_to_json(config.drm_gpus)},
    };
}

Result<SimConfig> config_from_json(const json& in) {
    try {
        if (in.at("schema").get<int>() != kSchema) {
            return fail(kExitFailure, "state written by an incompatible gpusim (schema " +
                                          in.at("schema").dump() + ")");
        }
        SimConfig config;
        const json& driver = in.at("driver");
        config.driver.version = driver.at("version").get<std::string>();
        config.driver.nvml_version = driver.at("nvml_version").get<std::string>();
        config.driver.cuda_version = driver.at("cuda_version").get<int>();
        config.driver.legacy = driver.at("legacy").get<bool>();
        for (const json& gpu : in.at("gpus")) config.gpus.push_back(gpu_from_json(gpu));
        if (in.contains("drm_gpus")) config.drm_gpus = drm_gpus_from_json(in.at("drm_gpus"));
        if (config.gpus.size() > kMaxGpus) return fail(kExitFailure, "too many GPUs in state");
        return config;
    } catch (const std::exception& error) {
        return fail(kExitFailure, std::string("corrupt gpusim state: ") + error.what());
    }
}

}  // namespace gpusim

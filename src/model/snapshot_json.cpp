#include "model/snapshot_json.hpp"

#include <fmt/format.h>

#include <ctime>

#include "model/json_optional.hpp"
#include "model/nvidia_architecture.hpp"
#include "model/start_time.hpp"

namespace gpukill {
namespace {

using json = nlohmann::ordered_json;

std::string join_args(const std::vector<std::string>& args) {
    std::string joined;
    for (const std::string& arg : args) {
        if (!joined.empty()) joined += ' ';
        joined += arg;
    }
    return joined;
}

json gpu_json(const Gpu& gpu) {
    const GpuReading& r = gpu.reading;
    return json{
        {"index", gpu.index},
        {"vendor", to_string(r.vendor)},
        {"backend", r.backend},
        {"name", or_null(r.name)},
        {"uuid", or_null(r.uuid)},
        {"pci_bus_id", or_null(r.pci_bus_id)},
        {"nvidia_minor", or_null(r.nvidia_minor)},
        {"driver_version", or_null(r.driver_version)},
        {"driver", or_null(r.driver)},
        {"drm_card", or_null(r.drm_card)},
        {"drm_render_node", or_null(r.drm_render_node)},
        {"memory_total_bytes", or_null(r.memory_total_bytes)},
        {"memory_used_bytes", or_null(r.memory_used_bytes)},
        {"unattributed_memory_bytes", or_null(gpu.unattributed_memory_bytes)},
        {"utilization_percent", or_null(r.utilization_percent)},
        {"memory_utilization_percent", or_null(r.memory_utilization_percent)},
        {"gtt_total_bytes", or_null(r.gtt_total_bytes)},
        {"gtt_used_bytes", or_null(r.gtt_used_bytes)},
        {"temperature_celsius", or_null(r.temperature_celsius)},
        {"power_watts", or_null(r.power_watts)},
        {"power_limit_watts", or_null(r.power_limit_watts)},
        {"energy_joules", or_null(r.energy_joules)},
        {"ecc_errors_corrected_volatile", or_null(r.ecc_errors_corrected_volatile)},
        {"ecc_errors_uncorrected_volatile", or_null(r.ecc_errors_uncorrected_volatile)},
        {"persistence_mode", or_null(r.persistence_mode)},
        {"mig_mode", or_null(r.mig_mode)},
        {"architecture", r.nvml_architecture ? or_null(nvml_architecture_name(*r.nvml_architecture))
                                             : json(nullptr)},
        {"nvlink_peer_bus_ids", or_null(r.nvlink_peer_bus_ids)},
        {"lost", r.lost},
        {"process_list_available", r.processes.has_value()},
        {"process_count", gpu.process_count},
        {"observer_count", gpu.observer_count},
        {"problems", r.problems},
    };
}

json container_json(const std::optional<ContainerInfo>& container) {
    if (!container) return nullptr;
    return json{{"runtime", container->runtime},
                {"id", container->id.empty() ? json(nullptr) : json(container->id)},
                {"pod_uid", or_null(container->pod_uid)},
                {"pod_namespace", or_null(container->pod_namespace)},
                {"image", or_null(container->image)},
                {"pod_name", or_null(container->pod_name)},
                {"container_name", or_null(container->container_name)}};
}

json slurm_job_json(const std::optional<SlurmJobInfo>& job) {
    if (!job) return nullptr;
    return json{{"job_id", job->job_id}, {"step", or_null(job->step)}, {"uid", or_null(job->uid)}};
}

json process_json(const Snapshot& snapshot, const SnapshotProcess& process) {
    const ProcessInfo& info = process.info;
    const bool known = process.info_complete;
    json gpus = json::array();
    for (const ProcessGpuUse& use : process.gpus) {
        json seen_by = json::array();
        if (use.seen_by.driver) seen_by.push_back("driver");
        if (use.seen_by.device_file) seen_by.push_back("device_file");
        gpus.push_back(json{
            {"index", use.gpu_index},
            {"memory_bytes", or_null(use.memory_bytes)},
            {"driver_kind", use.driver_kind ? json(to_string(*use.driver_kind)) : json(nullptr)},
            {"seen_by", seen_by},
            {"utilization_percent", or_null(use.utilization_percent)},
            {"attribution", to_string(use.attribution)},
        });
    }
    json device_files = json::array();
    json device_file_access = json::object();
    for (const DeviceNode& node : process.device_nodes) {
        std::string path = snapshot.devfs + "/" + node.relative_path;
        json access = json::array();
        if (node.access.descriptor) access.push_back("descriptor");
        if (node.access.mapping) access.push_back("mapping");
        device_file_access[path] = std::move(access);
        device_files.push_back(std::move(path));
    }
    auto start_ms = process_start_unix_ms(snapshot, info);
    return json{
        {"pid", info.pid},
        {"ppid", known ? json(info.ppid) : json(nullptr)},
        {"pgid", known ? json(info.pgid) : json(nullptr)},
        {"sid", known ? json(info.sid) : json(nullptr)},
        {"uid", or_null(info.uid)},
        {"user", known && !info.user.empty() ? json(info.user) : json(nullptr)},
        {"name", known ? json(info.comm) : json(nullptr)},
        {"cmdline", known ? json(join_args(info.cmdline)) : json(nullptr)},
        {"argv", known ? json(info.cmdline) : json(nullptr)},
        {"exe", or_null(info.exe)},
        {"exe_deleted", known ? json(info.exe_deleted) : json(nullptr)},
        {"state", known ? json(std::string(1, info.state)) : json(nullptr)},
        {"start_time", start_ms ? json(format_utc_timestamp(*start_ms)) : json(nullptr)},
        {"start_time_ticks", known ? json(info.start_time_ticks) : json(nullptr)},
        {"nspid", known ? json(info.nspid) : json(nullptr)},
        {"container", container_json(info.container)},
        {"slurm_job", slurm_job_json(info.slurm_job)},
        {"orphaned", process.orphaned},
        {"role", to_string(process.role)},
        {"info_complete", known},
        {"gpus", gpus},
        {"device_files", device_files},
        {"device_file_access", device_file_access},
    };
}

}  // namespace

std::string format_utc_timestamp(std::int64_t unix_ms) {
    std::time_t seconds = static_cast<std::time_t>(unix_ms / 1000);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", utc.tm_year + 1900,
                       utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                       unix_ms % 1000);
}

std::optional<std::int64_t> process_start_unix_ms(const Snapshot& snapshot,
                                                  const ProcessInfo& info) {
    if (!snapshot.boot_time_unix_s || info.start_time_ticks == 0) return std::nullopt;
    return start_time_unix_ms(info.start_time_ticks, *snapshot.boot_time_unix_s,
                              snapshot.clock_ticks_per_second);
}

nlohmann::ordered_json to_json(const Snapshot& snapshot) {
    json gpus = json::array();
    for (const Gpu& gpu : snapshot.gpus) gpus.push_back(gpu_json(gpu));
    json processes = json::array();
    for (const SnapshotProcess& process : snapshot.processes) {
        processes.push_back(process_json(snapshot, process));
    }
    json backends = json::array();
    for (const BackendStatus& backend : snapshot.backends) {
        backends.push_back(json{{"name", backend.name},
                                {"loaded", backend.loaded},
                                {"detail", backend.detail},
                                {"driver_version", or_null(backend.driver_version)}});
    }
    return json{
        {"schema_version", kSnapshotSchemaVersion},
        {"host", snapshot.host},
        {"timestamp", format_utc_timestamp(snapshot.timestamp_unix_ms)},
        {"timestamp_unix_ms", snapshot.timestamp_unix_ms},
        {"backends", backends},
        {"visibility",
         json{{"processes_scanned", snapshot.processes_scanned},
              {"processes_denied", snapshot.processes_denied},
              {"processes_unreadable", snapshot.processes_unreadable},
              {"processes_fdinfo_denied", snapshot.processes_fdinfo_denied},
              {"process_scan_failed", snapshot.process_scan_failed},
              {"host_pid_namespace", or_null(snapshot.host_pid_namespace)},
              {"complete", snapshot.processes_denied == 0 && snapshot.processes_unreadable == 0 &&
                               !snapshot.process_scan_failed &&
                               snapshot.host_pid_namespace.value_or(true)}}},
        {"unmatched_device_files", snapshot.unmatched_device_files},
        {"gpus", gpus},
        {"processes", processes},
        {"warnings", snapshot.warnings},
    };
}

}  // namespace gpukill

#include "model/snapshot_json_read.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <ctime>

#include "model/bounded_json.hpp"
#include "model/device_node.hpp"
#include "model/nvidia_architecture.hpp"
#include "model/start_time.hpp"

namespace gpukill {
namespace {

using document_json = nlohmann::json;

// Reads fields with their documented types; the first mismatch is kept as the error.
class Fields {
  public:
    explicit Fields(std::string where) : where_(std::move(where)) {}

    template <class T>
    std::optional<T> optional(const document_json& object, const char* key) {
        auto found = object.find(key);
        if (found == object.end() || found->is_null()) return std::nullopt;
        if (!matches<T>(*found)) {
            bad(key);
            return std::nullopt;
        }
        return found->get<T>();
    }
    template <class T>
    T required(const document_json& object, const char* key, T fallback = T{}) {
        auto found = object.find(key);
        if (found == object.end() || !matches<T>(*found)) {
            bad(key);
            return fallback;
        }
        return found->get<T>();
    }
    const document_json& array(const document_json& object, const char* key) {
        static const document_json empty = document_json::array();
        auto found = object.find(key);
        if (found == object.end() || !found->is_array()) {
            bad(key);
            return empty;
        }
        return *found;
    }
    std::optional<std::string> error() const { return error_; }
    void bad(std::string_view key) {
        if (!error_) error_ = fmt::format("{}.{} is missing or has the wrong type", where_, key);
    }

  private:
    template <class T>
    static bool matches(const document_json& value) {
        if constexpr (std::is_same_v<T, bool>) {
            return value.is_boolean();
        } else if constexpr (std::is_same_v<T, std::string>) {
            return value.is_string();
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
            if (!value.is_array()) return false;
            for (const document_json& item : value) {
                if (!item.is_string()) return false;
            }
            return true;
        } else if constexpr (std::is_same_v<T, std::vector<pid_t>>) {
            if (!value.is_array()) return false;
            for (const document_json& item : value) {
                if (!item.is_number_integer()) return false;
            }
            return true;
        } else if constexpr (std::is_floating_point_v<T>) {
            return value.is_number();
        } else if constexpr (std::is_unsigned_v<T>) {
            return value.is_number_unsigned();
        } else {
            return value.is_number_integer();
        }
    }
    std::string where_;
    std::optional<std::string> error_;
};

std::optional<Vendor> vendor_named(std::string_view name) {
    for (Vendor vendor : {Vendor::nvidia, Vendor::amd, Vendor::intel, Vendor::other}) {
        if (name == to_string(vendor)) return vendor;
    }
    return std::nullopt;
}

std::optional<DriverProcessKind> kind_named(std::string_view name) {
    for (auto kind :
         {DriverProcessKind::compute, DriverProcessKind::graphics, DriverProcessKind::mps}) {
        if (name == to_string(kind)) return kind;
    }
    return std::nullopt;
}

// The device root of a device file path: the longest prefix that leaves a GPU node.
std::optional<std::pair<std::string, DeviceNode>> split_device_path(const std::string& path) {
    for (auto slash = path.rfind('/'); slash != std::string::npos && slash > 0;
         slash = path.rfind('/', slash - 1)) {
        const std::string root = path.substr(0, slash);
        if (auto node = classify_device_path(path, root)) return std::pair{root, *node};
    }
    return std::nullopt;
}

// How one device file is held, from `device_file_access` (an object by path, each an
// array of "descriptor" and "mapping"). A file the object does not name, or a word it
// does not know, is an error: the writer names every file.
std::optional<NodeAccess> node_access(const document_json& access, const std::string& path) {
    const auto found = access.find(path);
    if (found == access.end() || !found->is_array()) return std::nullopt;
    NodeAccess how;
    for (const document_json& word : *found) {
        if (word == "descriptor") {
            how.descriptor = true;
        } else if (word == "mapping") {
            how.mapping = true;
        } else {
            return std::nullopt;
        }
    }
    return how;
}

Gpu read_gpu(const document_json& doc, Fields& fields) {
    Gpu gpu;
    GpuReading& r = gpu.reading;
    gpu.index = fields.required<unsigned>(doc, "index");
    const std::string vendor = fields.required<std::string>(doc, "vendor");
    if (auto known = vendor_named(vendor)) {
        r.vendor = *known;
    } else {
        fields.bad("vendor");
    }
    r.backend = fields.required<std::string>(doc, "backend");
    r.backend_index = gpu.index;
    r.name = fields.optional<std::string>(doc, "name");
    r.uuid = fields.optional<std::string>(doc, "uuid");
    r.pci_bus_id = fields.optional<std::string>(doc, "pci_bus_id");
    r.nvidia_minor = fields.optional<unsigned>(doc, "nvidia_minor");
    r.driver_version = fields.optional<std::string>(doc, "driver_version");
    r.driver = fields.optional<std::string>(doc, "driver");
    r.drm_card = fields.optional<std::string>(doc, "drm_card");
    r.drm_render_node = fields.optional<std::string>(doc, "drm_render_node");
    r.memory_total_bytes = fields.optional<std::uint64_t>(doc, "memory_total_bytes");
    r.memory_used_bytes = fields.optional<std::uint64_t>(doc, "memory_used_bytes");
    gpu.unattributed_memory_bytes =
        fields.optional<std::uint64_t>(doc, "unattributed_memory_bytes");
    r.utilization_percent = fields.optional<unsigned>(doc, "utilization_percent");
    r.memory_utilization_percent = fields.optional<unsigned>(doc, "memory_utilization_percent");
    r.gtt_total_bytes = fields.optional<std::uint64_t>(doc, "gtt_total_bytes");
    r.gtt_used_bytes = fields.optional<std::uint64_t>(doc, "gtt_used_bytes");
    r.temperature_celsius = fields.optional<int>(doc, "temperature_celsius");
    r.power_watts = fields.optional<double>(doc, "power_watts");
    r.power_limit_watts = fields.optional<double>(doc, "power_limit_watts");
    r.energy_joules = fields.optional<double>(doc, "energy_joules");
    r.ecc_errors_corrected_volatile =
        fields.optional<std::uint64_t>(doc, "ecc_errors_corrected_volatile");
    r.ecc_errors_uncorrected_volatile =
        fields.optional<std::uint64_t>(doc, "ecc_errors_uncorrected_volatile");
    r.persistence_mode = fields.optional<bool>(doc, "persistence_mode");
    r.mig_mode = fields.optional<bool>(doc, "mig_mode");
    // Added to schema 1 over time: optional here, so older documents still read.
    r.driver = fields.optional<std::string>(doc, "driver");
    r.drm_card = fields.optional<std::string>(doc, "drm_card");
    r.drm_render_node = fields.optional<std::string>(doc, "drm_render_node");
    r.gtt_total_bytes = fields.optional<std::uint64_t>(doc, "gtt_total_bytes");
    r.gtt_used_bytes = fields.optional<std::uint64_t>(doc, "gtt_used_bytes");
    if (auto architecture = fields.optional<std::string>(doc, "architecture")) {
        r.nvml_architecture = nvml_architecture_from_name(*architecture);
    }
    r.nvlink_peer_bus_ids = fields.optional<std::vector<std::string>>(doc, "nvlink_peer_bus_ids");
    r.lost = fields.required<bool>(doc, "lost");
    if (fields.required<bool>(doc, "process_list_available")) r.processes.emplace();
    gpu.process_count = fields.required<unsigned>(doc, "process_count");
    gpu.observer_count = fields.optional<unsigned>(doc, "observer_count").value_or(0);
    r.problems = fields.required<std::vector<std::string>>(doc, "problems");
    return gpu;
}

SnapshotProcess read_process(const document_json& doc, Fields& fields, Snapshot& snapshot) {
    SnapshotProcess process;
    ProcessInfo& info = process.info;
    info.pid = fields.required<pid_t>(doc, "pid");
    process.info_complete = fields.required<bool>(doc, "info_complete");
    info.ppid = fields.optional<pid_t>(doc, "ppid").value_or(0);
    info.pgid = fields.optional<pid_t>(doc, "pgid").value_or(0);
    info.sid = fields.optional<pid_t>(doc, "sid").value_or(0);
    info.uid = fields.optional<uid_t>(doc, "uid");
    info.user = fields.optional<std::string>(doc, "user").value_or("");
    info.comm = fields.optional<std::string>(doc, "name").value_or("");
    info.cmdline =
        fields.optional<std::vector<std::string>>(doc, "argv").value_or(std::vector<std::string>{});
    info.exe = fields.optional<std::string>(doc, "exe");
    info.exe_deleted = fields.optional<bool>(doc, "exe_deleted").value_or(false);
    const std::string state = fields.optional<std::string>(doc, "state").value_or("?");
    info.state = state.empty() ? '?' : state.front();
    info.start_time_ticks = fields.optional<std::uint64_t>(doc, "start_time_ticks").value_or(0);
    info.nspid = fields.optional<std::vector<pid_t>>(doc, "nspid").value_or(std::vector<pid_t>{});
    if (auto found = doc.find("container"); found != doc.end() && found->is_object()) {
        Fields inner("container");
        info.container =
            ContainerInfo{.runtime = inner.required<std::string>(*found, "runtime"),
                          .id = inner.optional<std::string>(*found, "id").value_or(""),
                          .pod_uid = inner.optional<std::string>(*found, "pod_uid"),
                          .pod_namespace = inner.optional<std::string>(*found, "pod_namespace"),
                          .image = inner.optional<std::string>(*found, "image"),
                          .pod_name = inner.optional<std::string>(*found, "pod_name"),
                          .container_name = inner.optional<std::string>(*found, "container_name")};
        if (inner.error()) fields.bad("container");
    }
    if (auto found = doc.find("slurm_job"); found != doc.end() && found->is_object()) {
        Fields inner("slurm_job");
        info.slurm_job = SlurmJobInfo{.job_id = inner.required<std::string>(*found, "job_id"),
                                      .step = inner.optional<std::string>(*found, "step"),
                                      .uid = inner.optional<uid_t>(*found, "uid")};
        if (inner.error()) fields.bad("slurm_job");
    }
    process.orphaned = fields.required<bool>(doc, "orphaned");
    // Absent in documents from before roles: every holder was counted as a workload.
    if (auto role = fields.optional<std::string>(doc, "role")) {
        if (*role == "observer") {
            process.role = ProcessRole::observer;
        } else if (*role != "workload") {
            fields.bad("role");
        }
    }
    for (const document_json& use_doc : fields.array(doc, "gpus")) {
        ProcessGpuUse use;
        use.gpu_index = fields.required<unsigned>(use_doc, "index");
        use.memory_bytes = fields.optional<std::uint64_t>(use_doc, "memory_bytes");
        use.utilization_percent = fields.optional<unsigned>(use_doc, "utilization_percent");
        if (auto kind = fields.optional<std::string>(use_doc, "driver_kind")) {
            use.driver_kind = kind_named(*kind);
            if (!use.driver_kind) fields.bad("driver_kind");
        }
        for (const std::string& seen :
             fields.required<std::vector<std::string>>(use_doc, "seen_by")) {
            use.seen_by.driver |= seen == "driver";
            use.seen_by.device_file |= seen == "device_file";
        }
        // Absent in documents from before the field: every tie was then this_gpu.
        if (auto attribution = fields.optional<std::string>(use_doc, "attribution")) {
            if (*attribution == to_string(GpuAttribution::any_amd_gpu)) {
                use.attribution = GpuAttribution::any_amd_gpu;
            } else if (*attribution != to_string(GpuAttribution::this_gpu)) {
                fields.bad("attribution");
            }
        }
        process.gpus.push_back(use);
    }
    // Absent in documents from before it: how each file was held is then unknown.
    const auto access_found = doc.find("device_file_access");
    const bool with_access = access_found != doc.end() && !access_found->is_null();
    if (with_access && !access_found->is_object()) fields.bad("device_file_access");
    for (const std::string& path : fields.required<std::vector<std::string>>(doc, "device_files")) {
        auto split = split_device_path(path);
        if (!split) {
            fields.bad("device_files");
            continue;
        }
        snapshot.devfs = split->first;
        if (with_access && access_found->is_object()) {
            if (auto how = node_access(*access_found, path)) {
                split->second.access = *how;
            } else {
                fields.bad("device_file_access");
            }
        }
        process.device_nodes.push_back(split->second);
    }
    // The boot time, from the first process whose start is given both ways.
    if (!snapshot.boot_time_unix_s && info.start_time_ticks != 0) {
        if (auto start = fields.optional<std::string>(doc, "start_time")) {
            std::tm tm{};
            int millis = 0;
            if (std::sscanf(start->c_str(), "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year, &tm.tm_mon,
                            &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &millis) == 7) {
                tm.tm_year -= 1900;
                tm.tm_mon -= 1;
                const std::int64_t start_ms =
                    static_cast<std::int64_t>(timegm(&tm)) * 1000 + millis;
                const auto since_boot_ms =
                    static_cast<std::int64_t>(info.start_time_ticks / kLinuxUserHz * 1000 +
                                              info.start_time_ticks % kLinuxUserHz * 10);
                snapshot.boot_time_unix_s = (start_ms - since_boot_ms) / 1000;
            }
        }
    }
    return process;
}

}  // namespace

Result<Snapshot> snapshot_from_json(std::string_view text) {
    auto parsed = parse_json_bounded(text, JsonBounds{.max_bytes = kMaxSnapshotJsonBytes});
    if (!parsed) {
        return fail("not a `gpukill list --json` document: " +
                    (parsed.error().kind == JsonRefusal::Kind::invalid
                         ? std::string("not a JSON object")
                         : parsed.error().what));
    }
    const document_json doc = std::move(*parsed);
    if (!doc.is_object()) return fail("not a `gpukill list --json` document: not a JSON object");
    auto version = doc.find("schema_version");
    if (version == doc.end() || !version->is_number_integer() || *version != 1) {
        return fail("not a `gpukill list --json` document of schema version 1");
    }
    Fields fields("snapshot");
    Snapshot snapshot;
    snapshot.clock_ticks_per_second = kLinuxUserHz;
    snapshot.host = fields.required<std::string>(doc, "host");
    snapshot.timestamp_unix_ms = fields.required<std::int64_t>(doc, "timestamp_unix_ms");
    for (const document_json& backend : fields.array(doc, "backends")) {
        snapshot.backends.push_back(BackendStatus{
            .name = fields.required<std::string>(backend, "name"),
            .loaded = fields.required<bool>(backend, "loaded"),
            .detail = fields.required<std::string>(backend, "detail"),
            .driver_version = fields.optional<std::string>(backend, "driver_version")});
    }
    if (auto visibility = doc.find("visibility");
        visibility != doc.end() && visibility->is_object()) {
        snapshot.processes_scanned = fields.required<std::size_t>(*visibility, "processes_scanned");
        snapshot.processes_denied = fields.required<std::size_t>(*visibility, "processes_denied");
        snapshot.processes_unreadable =
            fields.required<std::size_t>(*visibility, "processes_unreadable");
        snapshot.process_scan_failed = fields.required<bool>(*visibility, "process_scan_failed");
        snapshot.processes_fdinfo_denied =
            fields.optional<std::size_t>(*visibility, "processes_fdinfo_denied").value_or(0);
        snapshot.host_pid_namespace = fields.optional<bool>(*visibility, "host_pid_namespace");
    } else {
        fields.bad("visibility");
    }
    for (const document_json& gpu : fields.array(doc, "gpus"))
        snapshot.gpus.push_back(read_gpu(gpu, fields));
    for (const document_json& process : fields.array(doc, "processes")) {
        snapshot.processes.push_back(read_process(process, fields, snapshot));
    }
    snapshot.warnings = fields.required<std::vector<std::string>>(doc, "warnings");
    snapshot.unmatched_device_files =
        fields.optional<std::vector<std::string>>(doc, "unmatched_device_files")
            .value_or(std::vector<std::string>{});
    if (auto error = fields.error()) return fail("not a `gpukill list --json` document: " + *error);
    // The drivers' lists, as far as the document shows them: every process the driver saw.
    for (Gpu& gpu : snapshot.gpus) {
        if (!gpu.reading.processes) continue;
        for (const SnapshotProcess& process : snapshot.processes) {
            for (const ProcessGpuUse& use : process.gpus) {
                if (use.gpu_index != gpu.index || !use.seen_by.driver) continue;
                gpu.reading.processes->push_back(
                    DriverProcess{process.info.pid, use.memory_bytes,
                                  use.driver_kind.value_or(DriverProcessKind::compute)});
            }
        }
    }
    return snapshot;
}

}  // namespace gpukill

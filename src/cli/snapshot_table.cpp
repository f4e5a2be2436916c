#include "cli/snapshot_table.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cli/text_table.hpp"
#include "model/human_format.hpp"
#include "model/snapshot_json.hpp"

namespace gpukill::cli {
namespace {

// An unknown GPU metric: "N/A" as nvidia-smi prints what NVML does not support; "-" for
// a DRM GPU, whose driver simply offers no such file (no hwmon, no busy percentage).
std::string metric_cell(const GpuReading& r, bool known, const std::string& text) {
    if (known) return text;
    return r.backend == "nvml" ? "N/A" : "-";
}

bool has_drm_gpu(const Snapshot& snapshot) {
    return std::any_of(snapshot.gpus.begin(), snapshot.gpus.end(),
                       [](const Gpu& gpu) { return gpu.reading.backend != "nvml"; });
}

std::string percent_cell(const std::optional<unsigned>& percent) {
    return percent ? fmt::format("{}%", *percent) : "-";
}

const ProcessGpuUse* use_on(const SnapshotProcess& process, unsigned gpu_index) {
    for (const ProcessGpuUse& use : process.gpus) {
        if (use.gpu_index == gpu_index) return &use;
    }
    return nullptr;
}

std::string process_label(const SnapshotProcess& process) {
    const std::string& name = process.info.comm;
    return fmt::format("{} ({})", name.empty() ? "?" : name, process.info.pid);
}

// The GPU's top process: "python (5226) 30.0 GiB", and shorter forms for a narrow
// terminal that always keep the PID whole: "python (5226)", "pyt… (5226)", "(5226)".
struct TopProcessCell {
    std::string text;
    std::vector<std::string> shorter;
};

TopProcessCell top_process(const Snapshot& snapshot, const Gpu& gpu) {
    const SnapshotProcess* best = nullptr;
    std::uint64_t best_memory = 0;
    for (const SnapshotProcess& process : snapshot.processes) {
        const ProcessGpuUse* use = use_on(process, gpu.index);
        // One that may be on any AMD GPU, or an observer, is not this GPU's top process.
        if (use == nullptr || !use->known() || process.observer()) continue;
        std::uint64_t memory = use->memory_bytes.value_or(0);
        if (best == nullptr || memory > best_memory) {
            best = &process;
            best_memory = memory;
        }
    }
    if (best == nullptr) return {"-", {}};
    const ProcessGpuUse* use = use_on(*best, gpu.index);
    TopProcessCell cell{process_label(*best), {}};
    if (use->memory_bytes) {
        cell.shorter.push_back(cell.text);
        cell.text += " " + format_bytes(best_memory);
    }
    const std::string name = best->info.comm.empty() ? "?" : best->info.comm;
    const std::string pid = fmt::format("({})", best->info.pid);
    for (std::size_t keep = display_width(name); keep-- > 1;) {
        cell.shorter.push_back(cut_to_width(name, keep) + " " + pid);
    }
    cell.shorter.push_back(pid);
    return cell;
}

std::string memory_cell(const GpuReading& r) {
    if (!r.memory_used_bytes && !r.memory_total_bytes) return "-";  // e.g. an Intel iGPU
    std::string used = format_bytes(r.memory_used_bytes);
    std::string total = format_bytes(r.memory_total_bytes);
    if (r.memory_used_bytes && r.memory_total_bytes && *r.memory_total_bytes > 0) {
        return fmt::format("{} / {} ({}%)", used, total,
                           *r.memory_used_bytes * 100 / *r.memory_total_bytes);
    }
    return fmt::format("{} / {}", used, total);
}

// Why memory is used that the driver's list does not account for.
std::vector<std::string> gpu_notes(const Snapshot& snapshot, const Gpu& gpu) {
    std::vector<std::string> notes;
    const GpuReading& r = gpu.reading;
    if (r.lost)
        notes.push_back("GPU is lost (fell off the bus): only a reset or reboot brings it back");
    if (!r.processes) notes.push_back("the driver's process list could not be read");
    if (gpu.unattributed_memory_bytes &&
        *gpu.unattributed_memory_bytes >= kUnattributedNoteThresholdBytes) {
        std::vector<pid_t> file_only;
        for (const SnapshotProcess& process : snapshot.processes) {
            const ProcessGpuUse* use = use_on(process, gpu.index);
            if (use != nullptr && !use->seen_by.driver && !process.observer()) {
                file_only.push_back(process.info.pid);
            }
        }
        std::string amount = format_bytes(*gpu.unattributed_memory_bytes);
        if (!file_only.empty()) {
            // NVML cannot say how much each of them holds, nor whether part is leaked.
            notes.push_back(fmt::format(
                "{} used but not in the driver's process list; {} process{} hold{} this GPU "
                "only by its device file (PID {}), e.g. workers of a parent that died: ending "
                "them frees their share, and any rest is leaked (only a reset frees that)",
                amount, file_only.size(), file_only.size() == 1 ? "" : "es",
                file_only.size() == 1 ? "s" : "", fmt::join(file_only, ", ")));
        } else {
            notes.push_back(fmt::format(
                "{} used and no process holds this GPU: leaked by the driver; only a GPU reset "
                "frees it",
                amount));
        }
    }
    for (const std::string& problem : r.problems) notes.push_back("could not read " + problem);
    return notes;
}

std::string seen_by_cell(const ProcessGpuUse& use) {
    if (!use.known()) return "kfd (any AMD GPU) †";
    if (use.seen_by.driver && use.seen_by.device_file) return "driver+file";
    if (use.seen_by.driver) return "driver";
    return "file only *";
}

std::string header_line(const Snapshot& snapshot) {
    std::vector<std::string> drivers;
    for (const BackendStatus& backend : snapshot.backends) {
        if (backend.loaded && backend.driver_version) {
            drivers.push_back(fmt::format("{} driver {}", backend.name, *backend.driver_version));
        }
    }
    return fmt::format("{} · {}{}{}\n", snapshot.host,
                       format_local_time(snapshot.timestamp_unix_ms), drivers.empty() ? "" : " · ",
                       fmt::join(drivers, ", "));
}

void append_process_table(std::string& out, const Snapshot& snapshot, OutputWidth width) {
    // Per-process utilisation comes from DRM fdinfo only: the column is shown where a
    // DRM GPU is present ("-" until a second sample, in --watch, can measure it).
    const bool with_utilization = has_drm_gpu(snapshot);
    // Kubernetes' names where any holder is in a pod whose runtime named it.
    const bool with_pods = std::any_of(
        snapshot.processes.begin(), snapshot.processes.end(), [](const SnapshotProcess& p) {
            return p.info.container &&
                   (p.info.container->pod_name || p.info.container->pod_namespace);
        });
    std::vector<std::string> headers = {"GPU",     "PID",       "USER",  "NAME",    "MEMORY",
                                        "STARTED", "CONTAINER", "IMAGE", "SEEN BY", "COMMAND"};
    std::vector<bool> right = {true, true, false, false, true, false, false, false, false, false};
    if (with_pods) {
        headers.insert(headers.begin() + 7, {"NAMESPACE", "POD"});
        right.insert(right.begin() + 7, {false, false});
    }
    if (with_utilization) {
        headers.insert(headers.begin() + 5, "GPU%");
        right.insert(right.begin() + 5, true);
    }
    TextTable table(headers, right);
    struct Row {
        std::optional<unsigned> gpu;
        std::uint64_t memory;
        std::vector<std::string> cells;
        bool observer = false;  // listed after the GPU's workloads
    };
    std::vector<Row> rows;
    bool any_file_only = false;
    bool any_uncertain = false;
    bool any_observer = false;
    for (const SnapshotProcess& process : snapshot.processes) {
        const ProcessInfo& info = process.info;
        auto started = process_start_unix_ms(snapshot, info);
        std::string container = "-";
        if (info.container) {
            container = info.container->runtime;
            if (!info.container->id.empty()) container += ":" + info.container->id.substr(0, 12);
        }
        const std::string image =
            info.container && info.container->image ? *info.container->image : "-";
        const auto pod_cell = [&](std::optional<std::string> ContainerInfo::*field) {
            return info.container && (*info.container).*field ? *((*info.container).*field)
                                                              : std::string("-");
        };
        std::string command = fmt::format("{}", fmt::join(info.cmdline, " "));
        if (!process.info_complete) command = "(details unreadable: exited or not permitted)";
        std::string orphan = process.orphaned ? " (parent gone)" : "";
        auto base = [&](std::string gpu, std::string memory, std::string seen,
                        std::optional<unsigned> utilization = std::nullopt) {
            std::vector<std::string> cells{std::move(gpu),
                                           std::to_string(info.pid),
                                           info.user.empty() ? "?" : info.user,
                                           (info.comm.empty() ? "?" : info.comm) + orphan,
                                           std::move(memory),
                                           started ? format_local_time(*started) : "?",
                                           container,
                                           image,
                                           std::move(seen),
                                           command};
            if (with_pods) {
                cells.insert(cells.begin() + 7, {pod_cell(&ContainerInfo::pod_namespace),
                                                 pod_cell(&ContainerInfo::pod_name)});
            }
            if (with_utilization) cells.insert(cells.begin() + 5, percent_cell(utilization));
            return cells;
        };
        if (process.gpus.empty()) {
            rows.push_back({std::nullopt, 0, base("-", "-", "file (driver node)")});
            continue;
        }
        for (const ProcessGpuUse& use : process.gpus) {
            any_uncertain |= !use.known();
            any_file_only |= use.known() && !use.seen_by.driver && !process.observer();
            any_observer |= process.observer();
            rows.push_back({use.gpu_index, use.memory_bytes.value_or(0),
                            base(std::to_string(use.gpu_index),
                                 use.seen_by.driver ? format_bytes(use.memory_bytes) : "-",
                                 process.observer() ? "observer ‡" : seen_by_cell(use),
                                 use.utilization_percent),
                            process.observer()});
        }
    }
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
        if (a.gpu != b.gpu) return a.gpu.has_value() && (!b.gpu || *a.gpu < *b.gpu);
        if (a.observer != b.observer) return b.observer;
        return a.memory > b.memory;
    });
    for (Row& row : rows) table.add_row(std::move(row.cells));
    // The pod's names first: the container id and image say the most about what runs.
    for (const char* column : {"POD", "NAMESPACE", "STARTED", "IMAGE", "CONTAINER", "GPU%"})
        table.drop_when_narrow(column);
    out += '\n';
    out += table.render(0, width);
    if (any_file_only) {
        out +=
            "* not in the driver's process list: the process holds the GPU's device file "
            "(fuser sees it, nvidia-smi does not)\n";
    }
    if (any_observer) {
        out +=
            "‡ an observer: holds the GPU's device files as a monitoring client (NVML) does, "
            "with no context and no memory; not counted as the GPU's user, never a target\n";
    }
    if (any_uncertain) {
        out +=
            "† holds /dev/kfd, which serves every AMD GPU, and nothing says which it uses: "
            "listed under each; `kill --gpu` leaves it out, `kill --pid PID` stops it\n";
    }
}

}  // namespace

std::string render_snapshot_table(const Snapshot& snapshot, const TableOptions& options) {
    std::string out = header_line(snapshot);
    if (snapshot.gpus.empty()) {
        out += "No GPUs found.\n";
        for (const BackendStatus& backend : snapshot.backends) {
            out += fmt::format("  {}: {}\n", backend.name, backend.detail);
        }
    } else {
        // Mixed hosts name each GPU's vendor; an NVIDIA-only host looks like nvidia-smi.
        const bool with_vendor = has_drm_gpu(snapshot);
        std::vector<std::string> headers = {"GPU",   "NAME",  "MEMORY USED / TOTAL", "UTIL", "TEMP",
                                            "POWER", "PROCS", "TOP PROCESS"};
        std::vector<bool> right = {true, false, false, true, true, true, true, false};
        if (with_vendor) {
            headers.insert(headers.begin() + 1, "VENDOR");
            right.insert(right.begin() + 1, false);
        }
        TextTable table(headers, right);
        std::vector<std::pair<std::size_t, std::vector<std::string>>> notes;
        for (const Gpu& gpu : snapshot.gpus) {
            const GpuReading& r = gpu.reading;
            TopProcessCell top = top_process(snapshot, gpu);
            std::vector<std::string> cells = {
                std::to_string(gpu.index),
                r.name.value_or("?"),
                memory_cell(r),
                metric_cell(r, r.utilization_percent.has_value(),
                            fmt::format("{}%", r.utilization_percent.value_or(0))),
                metric_cell(r, r.temperature_celsius.has_value(),
                            fmt::format("{}°C", r.temperature_celsius.value_or(0))),
                metric_cell(r, r.power_watts.has_value(),
                            fmt::format("{:.0f} W", r.power_watts.value_or(0))),
                std::to_string(gpu.process_count),
                top.text,
            };
            if (with_vendor) {
                std::string vendor = to_string(r.vendor);
                if (r.driver) vendor += " (" + *r.driver + ")";
                cells.insert(cells.begin() + 1, std::move(vendor));
            }
            table.add_row(std::move(cells), std::move(top.shorter));
        }
        for (const char* column : {"TEMP", "POWER"}) table.drop_when_narrow(column);
        out += table.render(0, options.width);
        for (const Gpu& gpu : snapshot.gpus) {
            for (const std::string& note : gpu_notes(snapshot, gpu)) {
                out += fmt::format("  ! GPU {}: {}\n", gpu.index, note);
            }
        }
    }
    bool show_processes = options.details || (snapshot.gpus.empty() && !snapshot.processes.empty());
    if (show_processes && !snapshot.processes.empty()) {
        append_process_table(out, snapshot, options.width);
    } else if (!snapshot.processes.empty()) {
        const auto count = [&](auto&& predicate) {
            return static_cast<std::size_t>(
                std::count_if(snapshot.processes.begin(), snapshot.processes.end(), predicate));
        };
        const std::size_t observers = count([](const auto& p) { return p.observer(); });
        const std::size_t holders = snapshot.processes.size() - observers;
        const std::size_t file_only = count([](const auto& p) {
            return !p.observer() &&
                   std::any_of(p.gpus.begin(), p.gpus.end(),
                               [](const ProcessGpuUse& u) { return !u.seen_by.driver; });
        });
        const std::string observed =
            observers > 0
                ? fmt::format("{} observer{} (monitoring clients) hold{} device files", observers,
                              observers == 1 ? "" : "s", observers == 1 ? "s" : "")
                : "";
        if (holders == 0) {
            out += fmt::format("No process uses a GPU; {}; --details lists them\n", observed);
        } else {
            out += fmt::format(
                "{} process{} hold{} GPUs{}{}; --details lists them\n", holders,
                holders == 1 ? "" : "es", holders == 1 ? "s" : "",
                file_only > 0 ? fmt::format(" ({} seen only by device file)", file_only) : "",
                observers > 0 ? "; " + observed : "");
        }
    } else {
        out += "No process holds a GPU.\n";
    }
    for (const std::string& warning : snapshot.warnings)
        out += "warning: " + printable(warning) + "\n";
    return fit_to_width(out, options.width);
}

}  // namespace gpukill::cli

#include "backends/drm/drm_backend.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <thread>
#include <utility>

#include "backends/drm/drm_card_scan.hpp"
#include "backends/drm/drm_metrics.hpp"
#include "backends/drm/kfd_processes.hpp"
#include "backends/drm/kfd_topology.hpp"
#include "backends/drm/sysfs_attribute.hpp"

namespace gpukill::drm {
namespace {

// "2 GPUs (amdgpu)", "no DRM GPUs", then what was seen and left out, and why.
std::string describe(const CardScan& scan) {
    std::set<std::string> drivers;
    for (const DrmCard& card : scan.gpus) drivers.insert(card.driver);
    std::string text =
        scan.gpus.empty() ? std::string("no DRM GPUs")
                          : fmt::format("{} GPU{} ({})", scan.gpus.size(),
                                        scan.gpus.size() == 1 ? "" : "s", fmt::join(drivers, ", "));
    // One clause per reason: an 8-GPU NVIDIA host has eight nvidia-drm cards.
    std::vector<std::pair<std::string, std::vector<std::string>>> by_reason;
    for (const SkippedCard& skipped : scan.skipped) {
        auto same = std::find_if(by_reason.begin(), by_reason.end(),
                                 [&](const auto& entry) { return entry.first == skipped.reason; });
        if (same == by_reason.end()) {
            by_reason.push_back({skipped.reason, {skipped.card}});
        } else {
            same->second.push_back(skipped.card);
        }
    }
    for (const auto& [reason, cards] : by_reason) {
        text += fmt::format("; {} not listed: {}", fmt::join(cards, ", "), reason);
    }
    for (const std::string& problem : scan.problems) text += "; " + problem;
    return text;
}

// An optional text attribute (product_name, unique_id, a module's version).
std::optional<std::string> read_text(const std::string& path, std::string_view what,
                                     std::vector<std::string>& problems) {
    auto text = read_attribute(path);
    if (!text) {
        problems.push_back(fmt::format("{}: {}", what, text.error().what));
        return std::nullopt;
    }
    if (!*text) return std::nullopt;
    return parse_text_attribute(**text);
}

// The ROCm compute processes on each AMD GPU, by PCI bus id, or why they are unknown.
Result<std::map<std::string, std::vector<DriverProcess>>> read_compute_processes(
    const HostRoots& roots) {
    auto gpu_ids = read_kfd_gpu_ids(roots);
    if (!gpu_ids) return std::unexpected(gpu_ids.error());
    auto usage = read_kfd_process_usage(roots);
    if (!usage) return std::unexpected(usage.error());
    return kfd_processes_by_gpu(*usage, *gpu_ids);
}

}  // namespace

DrmBackend::DrmBackend(const HostRoots& roots) : DrmBackend(DrmBackendOptions{.roots = roots}) {}

DrmBackend::DrmBackend(DrmBackendOptions options) : options_(std::move(options)) {
    if (!options_.sleep) {
        options_.sleep = [](std::chrono::milliseconds wait) { std::this_thread::sleep_for(wait); };
    }
    status_.name = "drm";
    const std::string class_dir = options_.roots.sysfs + "/class/drm";
    if (!path_exists(class_dir)) {
        status_.detail = fmt::format("no {}: no DRM GPU driver is loaded", class_dir);
        status_.advice =
            "for AMD or Intel GPUs, load their kernel driver (amdgpu, i915 or xe); check "
            "`lsmod` and `dmesg`";
        return;
    }
    status_.loaded = true;
    auto scan = scan_drm_cards(options_.roots);
    status_.detail = scan ? describe(*scan) : scan.error().what;
}

std::vector<GpuReading> DrmBackend::read_gpus() {
    std::vector<GpuReading> gpus;
    auto scan = scan_drm_cards(options_.roots);
    if (!scan) {
        status_.detail = scan.error().what;
        return gpus;
    }
    status_.detail = describe(*scan);

    bool any_amdgpu = false;
    for (const DrmCard& card : scan->gpus) any_amdgpu |= card.driver == "amdgpu";
    Result<std::map<std::string, std::vector<DriverProcess>>> compute;
    if (any_amdgpu) compute = read_compute_processes(options_.roots);

    struct PendingEnergy {
        std::size_t gpu;
        std::string path;
        EnergySample first;
    };
    std::vector<PendingEnergy> pending;
    std::map<std::string, EnergySample> energy_now;

    for (const DrmCard& card : scan->gpus) {
        GpuReading gpu;
        gpu.vendor = card.vendor;
        gpu.backend = "drm";
        gpu.backend_index = card.card_minor;
        gpu.pci_bus_id = card.pci_bus_id;
        gpu.driver = card.driver;
        gpu.drm_card = card.card;
        gpu.drm_render_node = card.render_node;
        gpu.process_list_accounts_memory = false;
        gpu.name = display_name(
            card, read_text(card.device_dir + "/product_name", "product name", gpu.problems));
        gpu.uuid = read_text(card.device_dir + "/unique_id", "unique id", gpu.problems);
        if (!card.driver.empty()) {
            gpu.driver_version =
                read_text(fmt::format("{}/module/{}/version", options_.roots.sysfs, card.driver),
                          "driver version", gpu.problems);
        }

        DeviceMetrics metrics = read_device_metrics(card.device_dir);
        gpu.memory_total_bytes = metrics.vram_total_bytes;
        gpu.memory_used_bytes = metrics.vram_used_bytes;
        gpu.gtt_total_bytes = metrics.gtt_total_bytes;
        gpu.gtt_used_bytes = metrics.gtt_used_bytes;
        // A runtime-suspended GPU is powered down: it runs nothing.
        gpu.utilization_percent =
            metrics.runtime_suspended ? std::optional<unsigned>(0) : metrics.busy_percent;
        gpu.temperature_celsius = metrics.hwmon.temperature_celsius;
        gpu.power_watts = metrics.hwmon.power_watts;
        gpu.power_limit_watts = metrics.hwmon.power_limit_watts;
        for (std::string& problem : metrics.problems) gpu.problems.push_back(std::move(problem));

        if (metrics.hwmon.energy_microjoules) {
            gpu.energy_joules = static_cast<double>(*metrics.hwmon.energy_microjoules) / 1e6;
        }
        if (!gpu.power_watts && metrics.hwmon.energy_microjoules) {
            const EnergySample sample{*metrics.hwmon.energy_microjoules, options_.now()};
            if (auto earlier = last_energy_.find(card.pci_bus_id); earlier != last_energy_.end()) {
                // A counter that went backwards (reset, wrapped) gives no power this time.
                gpu.power_watts = power_from_energy(earlier->second, sample);
                energy_now[card.pci_bus_id] = sample;
            } else {
                pending.push_back({gpus.size(), *metrics.hwmon.energy_path, sample});
            }
        }

        if (card.driver == "amdgpu") {
            if (compute) {
                auto listed = compute->find(card.pci_bus_id);
                gpu.processes =
                    listed == compute->end() ? std::vector<DriverProcess>{} : listed->second;
            } else {
                gpu.problems.push_back(fmt::format("compute processes: {}", compute.error().what));
            }
        } else {
            // Other drivers have no driver-side process list; their clients come from
            // /proc/PID/fdinfo during discovery.
            gpu.processes = std::vector<DriverProcess>{};
        }
        gpus.push_back(std::move(gpu));
    }

    if (!pending.empty()) {
        options_.sleep(options_.first_energy_interval);
        for (const PendingEnergy& first : pending) {
            GpuReading& gpu = gpus[first.gpu];
            auto microjoules = read_energy_counter(first.path, gpu.problems);
            if (!microjoules) continue;
            const EnergySample second{*microjoules, options_.now()};
            gpu.energy_joules = static_cast<double>(*microjoules) / 1e6;
            gpu.power_watts = power_from_energy(first.first, second);
            energy_now[*gpu.pci_bus_id] = second;
        }
    }
    last_energy_ = std::move(energy_now);
    return gpus;
}

}  // namespace gpukill::drm

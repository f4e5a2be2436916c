#include "reclaim/reset_plan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "model/human_format.hpp"

namespace gpukill::reclaim {
namespace {

std::string label(const Gpu& gpu) {
    return gpu.reading.pci_bus_id ? fmt::format("GPU {} ({})", gpu.index, *gpu.reading.pci_bus_id)
                                  : fmt::format("GPU {}", gpu.index);
}

std::string joined_indices(const std::vector<unsigned>& indices, std::string_view separator) {
    std::string text;
    for (unsigned index : indices) {
        if (!text.empty()) text += separator;
        text += std::to_string(index);
    }
    return text;
}

std::string driver_of(const Gpu& gpu, const ResetFacts& facts) {
    auto driver = facts.drivers.find(gpu.index);
    return driver != facts.drivers.end() ? driver->second : std::string();
}

// The kernel interfaces that put a GPU back: said once, for every GPU without a path.
std::string rebind_advice(const Gpu& gpu, const std::string& driver) {
    const std::string bus = gpu.reading.pci_bus_id.value_or("BUS_ID");
    const std::string name = driver.empty() ? "DRIVER" : driver;
    return fmt::format(
        "stop what uses it, then rebind its driver (echo {0} > /sys/bus/pci/drivers/{1}/unbind; "
        "echo {0} > /sys/bus/pci/drivers/{1}/bind) or reboot",
        bus, name);
}

struct ResetPath {
    std::optional<ResetMethod> method;
    std::optional<std::string> amdgpu_recover_path;
    std::string why_not;  // when there is no method
    std::string advice;
};

ResetPath reset_path(const Gpu& gpu, const ResetFacts& facts) {
    const std::string driver = driver_of(gpu, facts);
    ResetPath path;
    if (gpu.reading.vendor == Vendor::nvidia && gpu.reading.backend == "nvml") {
        if (facts.nvidia_smi) {
            path.method = ResetMethod::nvidia_smi;
        } else {
            path.why_not = fmt::format("{} is NVIDIA, which resets only through nvidia-smi: {}",
                                       label(gpu), facts.nvidia_smi_missing);
            path.advice =
                "install the NVIDIA utilities, or give its path with --nvidia-smi PATH "
                "(or GPUKILL_NVIDIA_SMI)";
        }
        return path;
    }
    if (gpu.reading.vendor == Vendor::amd && (driver.empty() || driver == "amdgpu")) {
        auto amd = facts.amd.find(gpu.index);
        if (amd != facts.amd.end() && amd->second.path) {
            path.method = ResetMethod::amdgpu_debugfs;
            path.amdgpu_recover_path = amd->second.path;
        } else {
            path.why_not = fmt::format(
                "{} (amdgpu) resets through debugfs amdgpu_gpu_recover, which is not available: "
                "{}",
                label(gpu),
                amd != facts.amd.end() ? amd->second.why_not : "its DRM card was not found");
            path.advice =
                "mount debugfs (mount -t debugfs none /sys/kernel/debug) and run as root; "
                "otherwise " +
                rebind_advice(gpu, "amdgpu");
        }
        return path;
    }
    const char* vendor = gpu.reading.vendor == Vendor::intel    ? "an Intel GPU"
                         : gpu.reading.vendor == Vendor::amd    ? "an AMD GPU"
                         : gpu.reading.vendor == Vendor::nvidia ? "an NVIDIA GPU"
                                                                : "a GPU";
    path.why_not = fmt::format(
        "{} is {}{} without a reset gpukill can trigger: it resets NVIDIA "
        "GPUs through nvidia-smi and AMD GPUs through amdgpu recovery",
        label(gpu), vendor, driver.empty() ? "" : " on driver " + driver);
    path.advice = rebind_advice(gpu, driver);
    return path;
}

std::vector<std::string> notes_for(const Gpu& gpu, const std::vector<unsigned>& group,
                                   const ResetFacts& facts) {
    const GpuReading& r = gpu.reading;
    const std::string bus = r.pci_bus_id.value_or(std::to_string(gpu.index));
    std::vector<std::string> notes;
    if (r.lost) {
        notes.push_back(
            "the driver reports it lost (fallen off the bus): a reset rarely brings it "
            "back; if it fails, power-cycle or reboot the node");
    }
    if (r.mig_mode.value_or(false)) {
        notes.push_back(fmt::format(
            "MIG is on: nvidia-smi may refuse while GPU or compute instances exist; destroy them "
            "first (nvidia-smi mig -dci -i {0}; nvidia-smi mig -dgi -i {0})",
            gpu.index));
    }
    if (r.persistence_mode.value_or(false)) {
        notes.push_back(fmt::format(
            "persistence mode is on: if nvidia-smi answers \"In use by another client\", turn "
            "it off first (nvidia-smi -pm 0 -i {}) and back on after",
            bus));
    }
    if (group.size() > 1) {
        std::vector<unsigned> others;
        for (unsigned index : group) {
            if (index != gpu.index) others.push_back(index);
        }
        const bool xgmi = facts.xgmi_hives.contains(gpu.index);
        notes.push_back(fmt::format("resets together with GPU {} ({})",
                                    joined_indices(others, ", "),
                                    xgmi ? "same XGMI hive: recovery resets the whole hive"
                                         : "NVLink on a pre-Ampere part"));
    }
    if (r.vendor == Vendor::nvidia && !r.nvml_architecture && r.nvlink_peer_bus_ids &&
        !r.nvlink_peer_bus_ids->empty()) {
        notes.push_back(
            "it has NVLink peers and its architecture is unknown: if nvidia-smi asks "
            "for them, reset them together (--gpu A,B or --all)");
    }
    return notes;
}

std::string holder_summary(const std::vector<ResetHolder>& holders) {
    constexpr std::size_t kShown = 5;
    std::string text;
    for (std::size_t i = 0; i < holders.size() && i < kShown; ++i) {
        if (!text.empty()) text += ", ";
        text += fmt::format("PID {} {}", holders[i].pid, holders[i].name);
    }
    if (holders.size() > kShown) text += fmt::format(" and {} more", holders.size() - kShown);
    return text;
}

ResetGpu planned_gpu(const Gpu& gpu, const ResetPath& path) {
    const GpuReading& r = gpu.reading;
    ResetGpu planned;
    planned.index = gpu.index;
    planned.vendor = r.vendor;
    planned.name = r.name;
    planned.uuid = r.uuid;
    planned.pci_bus_id = r.pci_bus_id;
    planned.method = *path.method;
    planned.amdgpu_recover_path = path.amdgpu_recover_path;
    planned.memory_used_before_bytes = r.memory_used_bytes;
    planned.memory_total_bytes = r.memory_total_bytes;
    planned.persistence_mode = r.persistence_mode;
    planned.mig_mode = r.mig_mode;
    planned.lost = r.lost;
    return planned;
}

// Observers are not holders (nothing of theirs is ended), but NVIDIA's reset refuses a
// GPU that any process has open: "There can't be any applications using this particular
// device (e.g. ... monitoring application like other instance of nvidia-smi)",
// nvidia-smi(1), --gpu-reset.
std::optional<std::string> observers_note(const Snapshot& snapshot, const ResetGpu& gpu) {
    if (gpu.vendor != Vendor::nvidia) return std::nullopt;
    std::vector<std::string> named;
    for (const SnapshotProcess& process : snapshot.processes) {
        if (!process.observer()) continue;
        for (const ProcessGpuUse& use : process.gpus) {
            if (use.gpu_index != gpu.index) continue;
            named.push_back(
                fmt::format("PID {} ({})", process.info.pid,
                            printable(process.info.comm.empty() ? "?" : process.info.comm)));
        }
    }
    if (named.empty()) return std::nullopt;
    return fmt::format(
        "open by {} observer{} ({}): monitoring clients, which gpukill does not end; "
        "nvidia-smi refuses to reset a GPU any process has open. gpukill's own agent lets "
        "go for the reset; stop any other first",
        named.size(), named.size() == 1 ? "" : "s", fmt::join(named, ", "));
}

void block(ResetPlan& plan, ResetDecision decision, ResetBlock why_kind, std::string why,
           std::optional<std::string> advice) {
    plan.decision = decision;
    plan.block = why_kind;
    plan.why = std::move(why);
    plan.advice = std::move(advice);
}

}  // namespace

std::vector<ResetHolder> holders_of(const Snapshot& snapshot, const std::set<unsigned>& gpus) {
    std::vector<ResetHolder> holders;
    for (const SnapshotProcess& process : snapshot.processes) {
        if (process.observer()) continue;  // observers_of: they hold no context to end
        ResetHolder holder;
        for (const ProcessGpuUse& use : process.gpus) {
            if (!gpus.contains(use.gpu_index)) continue;
            holder.gpus.push_back(use.gpu_index);
            holder.driver_listed |= use.seen_by.driver;
            if (use.memory_bytes) {
                holder.memory_bytes = holder.memory_bytes.value_or(0) + *use.memory_bytes;
            }
        }
        if (holder.gpus.empty()) continue;
        holder.pid = process.info.pid;
        holder.start_time_ticks = process.info.start_time_ticks;
        holder.name = process.info.comm;
        holder.user = process.info.user;
        holder.uid = process.info.uid;
        holders.push_back(std::move(holder));
    }
    return holders;
}

ResetPlan build_reset_plan(const Snapshot& snapshot, const ResetRequest& request,
                           const ResetFacts& facts) {
    ResetPlan plan;
    plan.force = request.force;
    plan.decision = ResetDecision::reset;

    std::vector<unsigned> requested = request.gpus;
    if (request.all) {
        requested.clear();
        for (const Gpu& gpu : snapshot.gpus) requested.push_back(gpu.index);
    }
    std::sort(requested.begin(), requested.end());
    requested.erase(std::unique(requested.begin(), requested.end()), requested.end());

    std::vector<std::pair<std::string, std::string>> unsupported;  // why, advice
    for (unsigned index : requested) {
        const Gpu* gpu = find_gpu(snapshot, index);
        if (gpu == nullptr) continue;  // resolved against this snapshot: cannot happen
        ResetPath path = reset_path(*gpu, facts);
        if (!path.method) {
            if (request.all) {
                plan.skipped.push_back({index, gpu->reading.name, path.why_not});
            } else {
                unsupported.emplace_back(path.why_not, path.advice);
            }
            continue;
        }
        plan.gpus.push_back(planned_gpu(*gpu, path));
    }

    std::set<unsigned> chosen;
    for (const ResetGpu& gpu : plan.gpus) chosen.insert(gpu.index);
    for (ResetGpu& planned : plan.gpus) {
        planned.reset_with = reset_group_of(snapshot, facts, planned.index);
        planned.notes = notes_for(*find_gpu(snapshot, planned.index), planned.reset_with, facts);
        if (auto note = observers_note(snapshot, planned)) planned.notes.push_back(*note);
        if (std::find(plan.groups.begin(), plan.groups.end(), planned.reset_with) ==
            plan.groups.end()) {
            plan.groups.push_back(planned.reset_with);
        }
    }
    plan.holders = holders_of(snapshot, chosen);

    if (!unsupported.empty()) {
        block(plan, ResetDecision::refused, ResetBlock::unsupported, unsupported.front().first,
              unsupported.front().second);
        return plan;
    }
    if (request.all && plan.gpus.empty() && !plan.skipped.empty()) {
        block(plan, ResetDecision::refused, ResetBlock::unsupported,
              fmt::format("none of the {} GPUs has a reset gpukill can trigger: {}",
                          plan.skipped.size(), plan.skipped.front().why),
              std::nullopt);
        return plan;
    }
    if (plan.gpus.empty()) return plan;  // a host without GPUs: nothing to do
    if (!facts.privileged) {
        block(plan, ResetDecision::refused, ResetBlock::permission,
              "resetting a GPU needs root (or CAP_SYS_ADMIN)",
              "run it as root, e.g. sudo gpukill reset ...");
        return plan;
    }
    for (const ResetGpu& gpu : plan.gpus) {
        std::vector<unsigned> missing;
        for (unsigned member : gpu.reset_with) {
            if (!chosen.contains(member)) missing.push_back(member);
        }
        if (missing.empty()) continue;
        block(plan, ResetDecision::refused, ResetBlock::incomplete_group,
              fmt::format("GPU {} can only be reset together with GPU {} ({})", gpu.index,
                          joined_indices(missing, ", "),
                          facts.xgmi_hives.contains(gpu.index)
                              ? "one XGMI hive: recovering one GPU resets them all"
                              : "joined by NVLink on a pre-Ampere part"),
              fmt::format("reset them together: gpukill reset --gpu {} (or --all)",
                          joined_indices(gpu.reset_with, ",")));
        return plan;
    }
    if (!plan.holders.empty()) {
        if (request.force) {
            plan.decision = ResetDecision::reclaim_then_reset;
            return plan;
        }
        block(plan, ResetDecision::held, ResetBlock::holders,
              fmt::format("{} process{} hold{} the GPU{}: {}", plan.holders.size(),
                          plan.holders.size() == 1 ? "" : "es", plan.holders.size() == 1 ? "s" : "",
                          plan.gpus.size() == 1 ? "" : "s", holder_summary(plan.holders)),
              "stop them, or add --force to end them (SIGTERM, then SIGKILL after "
              "--timeout-secs) and then reset");
    }
    return plan;
}

}  // namespace gpukill::reclaim

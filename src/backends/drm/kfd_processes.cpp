#include "backends/drm/kfd_processes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "backends/drm/sysfs_attribute.hpp"
#include "backends/drm/sysfs_values.hpp"
#include "model/parse_util.hpp"

namespace gpukill::drm {
namespace {

Error unexpected_value(const std::string& path) {
    return Error{fmt::format("unexpected value in {}", path), 0};
}

// The process's queues, counted per GPU. Each queues/<id>/gpuid holds the gpu_id ("%u",
// without a newline). A queue destroyed while it is read is skipped.
Result<std::map<std::uint32_t, unsigned>> read_queues(const std::string& process_dir) {
    std::map<std::uint32_t, unsigned> queues;
    const std::string queues_dir = process_dir + "/queues";
    auto names = list_directory(queues_dir);
    if (!names) return std::unexpected(names.error());
    if (!*names) return queues;
    for (const std::string& name : **names) {
        const std::string path = queues_dir + "/" + name + "/gpuid";
        auto text = read_attribute(path);
        if (!text) return std::unexpected(text.error());
        if (!*text) continue;
        auto gpu_id = parse_unsigned_attribute(**text);
        if (!gpu_id || *gpu_id > 0xffffffff) return std::unexpected(unexpected_value(path));
        ++queues[static_cast<std::uint32_t>(*gpu_id)];
    }
    return queues;
}

}  // namespace

std::optional<std::uint32_t> kfd_vram_file_gpu_id(std::string_view name) {
    if (!name.starts_with("vram_")) return std::nullopt;
    name.remove_prefix(5);
    if (!text::is_canonical_decimal(name)) return std::nullopt;
    return text::parse_int<std::uint32_t>(name);
}

std::map<std::string, std::vector<DriverProcess>> kfd_processes_by_gpu(
    const std::vector<KfdProcessUsage>& usage,
    const std::map<std::uint32_t, std::string>& gpu_ids) {
    std::map<std::string, std::vector<DriverProcess>> by_gpu;
    for (const KfdProcessUsage& process : usage) {
        std::map<std::string, std::uint64_t> vram_by_pci;
        std::set<std::string> used;
        for (const auto& [gpu_id, bytes] : process.vram_bytes_by_gpu_id) {
            auto pci = gpu_ids.find(gpu_id);
            if (pci == gpu_ids.end()) continue;
            vram_by_pci[pci->second] += bytes;
            if (bytes > 0) used.insert(pci->second);
        }
        for (const auto& [gpu_id, count] : process.queues_by_gpu_id) {
            auto pci = gpu_ids.find(gpu_id);
            if (pci != gpu_ids.end() && count > 0) used.insert(pci->second);
        }
        for (const std::string& pci : used) {
            by_gpu[pci].push_back(DriverProcess{.pid = process.pid,
                                                .memory_bytes = vram_by_pci[pci],
                                                .kind = DriverProcessKind::compute});
        }
    }
    for (auto& [pci, processes] : by_gpu) {
        std::sort(processes.begin(), processes.end(),
                  [](const DriverProcess& a, const DriverProcess& b) { return a.pid < b.pid; });
    }
    return by_gpu;
}

Result<std::vector<KfdProcessUsage>> read_kfd_process_usage(const HostRoots& roots) {
    const std::string proc_dir = roots.sysfs + "/class/kfd/kfd/proc";
    std::vector<KfdProcessUsage> usage;
    auto pids = list_directory(proc_dir);
    if (!pids) return std::unexpected(pids.error());
    if (!*pids) return usage;
    for (const std::string& name : **pids) {
        if (!text::is_canonical_decimal(name)) continue;
        auto pid = text::parse_int<pid_t>(name);
        if (!pid || *pid <= 0) continue;
        const std::string dir = proc_dir + "/" + name;
        auto files = list_directory(dir);
        if (!files) return std::unexpected(files.error());
        if (!*files) continue;  // the process ended meanwhile
        KfdProcessUsage process{.pid = *pid};
        for (const std::string& file : **files) {
            auto gpu_id = kfd_vram_file_gpu_id(file);
            if (!gpu_id) continue;
            const std::string path = dir + "/" + file;
            auto text = read_attribute(path);
            if (!text) return std::unexpected(text.error());
            if (!*text) continue;
            auto bytes = parse_unsigned_attribute(**text);
            if (!bytes) return std::unexpected(unexpected_value(path));
            process.vram_bytes_by_gpu_id[*gpu_id] = *bytes;
        }
        auto queues = read_queues(dir);
        if (!queues) return std::unexpected(queues.error());
        process.queues_by_gpu_id = std::move(*queues);
        usage.push_back(std::move(process));
    }
    std::sort(usage.begin(), usage.end(),
              [](const KfdProcessUsage& a, const KfdProcessUsage& b) { return a.pid < b.pid; });
    return usage;
}

}  // namespace gpukill::drm

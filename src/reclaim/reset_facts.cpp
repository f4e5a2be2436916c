#include "reclaim/reset_facts.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <filesystem>

#include "host/capabilities.hpp"
#include "host/drm_pci.hpp"
#include "host/run_program.hpp"
#include "sys/fd_io.hpp"

namespace gpukill::reclaim {
namespace {

namespace fs = std::filesystem;

bool privileged() {
    if (geteuid() == 0) return true;
    auto status = read_file_at(AT_FDCWD, "/proc/self/status");
    if (!status) return false;
    auto mask = parse_effective_capabilities(*status);
    return mask && has_cap_sys_admin(*mask);
}

void find_nvidia_smi(const ResetFactsOptions& options, ResetFacts& facts) {
    if (options.nvidia_smi) {
        if (is_executable_file(*options.nvidia_smi)) {
            facts.nvidia_smi = *options.nvidia_smi;
        } else {
            facts.nvidia_smi_missing = fmt::format(
                "{} (from --nvidia-smi or GPUKILL_NVIDIA_SMI) is not an executable "
                "file",
                *options.nvidia_smi);
        }
        return;
    }
    facts.nvidia_smi =
        find_in_path("nvidia-smi", options.path_env.value_or(""), is_executable_file);
    if (!facts.nvidia_smi) facts.nvidia_smi_missing = "nvidia-smi is not on PATH";
}

std::string pci_device_dir(const HostRoots& roots, const std::string& bus_id) {
    return roots.sysfs + "/bus/pci/devices/" + bus_id;
}

std::optional<std::string> kernel_driver(const HostRoots& roots, const std::string& bus_id) {
    auto target = read_link_at(AT_FDCWD, (pci_device_dir(roots, bus_id) + "/driver").c_str());
    if (!target) return std::nullopt;
    return fs::path(*target).filename().string();
}

// cardN of the DRM device at `bus_id`: debugfs names its directory by that minor.
std::optional<unsigned> card_minor(const HostRoots& roots, const std::string& bus_id) {
    std::error_code error;
    fs::directory_iterator it(roots.sysfs + "/class/drm", error);
    for (; !error && it != fs::directory_iterator(); it.increment(error)) {
        const std::string name = it->path().filename().string();
        if (!name.starts_with("card")) continue;
        unsigned minor = 0;
        const char* first = name.data() + 4;
        const char* last = name.data() + name.size();
        const auto [end, parsed] = std::from_chars(first, last, minor);
        if (parsed != std::errc{} || end != last || first == last) continue;  // card0-DP-1
        if (resolve_drm_pci_bus_id(roots, name) == bus_id) return minor;
    }
    return std::nullopt;
}

AmdRecovery amd_recovery(const HostRoots& roots, const std::string& bus_id) {
    const std::string dri = roots.sysfs + "/kernel/debug/dri";
    std::error_code error;
    if (!fs::is_directory(dri, error)) {
        return {std::nullopt,
                fmt::format("{} is missing: debugfs is not mounted, or not readable without root",
                            dri)};
    }
    std::vector<std::string> candidates = {dri + "/" + bus_id + "/amdgpu_gpu_recover"};
    if (auto minor = card_minor(roots, bus_id)) {
        candidates.push_back(fmt::format("{}/{}/amdgpu_gpu_recover", dri, *minor));
    }
    for (const std::string& candidate : candidates) {
        if (fs::exists(candidate, error)) return {candidate, ""};
    }
    return {std::nullopt, fmt::format("no amdgpu_gpu_recover for {} under {} (a kernel without "
                                      "GPU recovery in debugfs?)",
                                      bus_id, dri)};
}

}  // namespace

bool has_cap_sys_admin(std::uint64_t mask) {
    constexpr unsigned kCapSysAdmin = 21;
    return ((mask >> kCapSysAdmin) & 1U) != 0;
}

std::optional<std::string> parse_xgmi_hive_id(std::string_view text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
    std::string_view digits = text;
    const bool hex = digits.starts_with("0x") || digits.starts_with("0X");
    if (hex) digits.remove_prefix(2);
    if (digits.empty()) return std::nullopt;
    bool nonzero = false;
    for (char c : digits) {
        const auto byte = static_cast<unsigned char>(c);
        if (!(hex ? std::isxdigit(byte) : std::isdigit(byte))) return std::nullopt;
        nonzero |= c != '0';
    }
    if (!nonzero) return std::nullopt;
    return std::string(text);
}

ResetFacts gather_reset_facts(const Snapshot& snapshot, const HostRoots& roots,
                              const ResetFactsOptions& options) {
    ResetFacts facts;
    facts.privileged = privileged();
    find_nvidia_smi(options, facts);
    for (const Gpu& gpu : snapshot.gpus) {
        if (!gpu.reading.pci_bus_id) continue;
        const std::string& bus_id = *gpu.reading.pci_bus_id;
        if (auto driver = kernel_driver(roots, bus_id)) facts.drivers[gpu.index] = *driver;
        if (gpu.reading.vendor != Vendor::amd) continue;
        facts.amd[gpu.index] = amd_recovery(roots, bus_id);
        auto hive =
            read_file_at(AT_FDCWD, (pci_device_dir(roots, bus_id) + "/xgmi_hive_id").c_str());
        if (hive) {
            if (auto id = parse_xgmi_hive_id(*hive)) facts.xgmi_hives[gpu.index] = *id;
        }
    }
    return facts;
}

}  // namespace gpukill::reclaim

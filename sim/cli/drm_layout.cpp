#include "cli/drm_layout.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "state/files.hpp"
#include "state/pci.hpp"

namespace gpusim {

namespace {

namespace fs = std::filesystem;

constexpr unsigned kRenderMinorBase = 128;  // renderD128 is the first render node
constexpr unsigned kDrmMajor = 226;

}  // namespace

std::filesystem::path sys_dir(const Root& root) {
    return root.dir / "sys";
}

std::filesystem::path drm_card_node(const Root& root, unsigned drm_index) {
    return root.dev_dir() / "dri" / ("card" + std::to_string(drm_index));
}

std::filesystem::path drm_render_node(const Root& root, unsigned drm_index) {
    return root.dev_dir() / "dri" / ("renderD" + std::to_string(kRenderMinorBase + drm_index));
}

std::filesystem::path kfd_node(const Root& root) {
    return root.dev_dir() / "kfd";
}

namespace {

std::string hex(unsigned value, int digits) {
    std::array<char, 16> buffer{};
    std::snprintf(buffer.data(), buffer.size(), "0x%0*x\n", digits, value);
    return buffer.data();
}

std::string line(std::uint64_t value) {
    return std::to_string(value) + "\n";
}

Result<void> make_dirs(const fs::path& dir) {
    std::error_code error;
    fs::create_directories(dir, error);
    if (error) return fail(kExitFailure, "cannot create " + dir.string() + ": " + error.message());
    return {};
}

// A sysfs attribute: a small text file. Device nodes get mode 0666 like crw-rw-rw- nodes.
Result<void> write_text(const fs::path& path, std::string_view content, unsigned mode = 0644) {
    if (auto made = make_dirs(path.parent_path()); !made) return made;
    auto fd = open_file(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (!fd) return std::unexpected(fd.error());
    if (::fchmod(fd->get(), static_cast<mode_t>(mode)) != 0 || !write_all(fd->get(), content)) {
        return fail(kExitFailure, "cannot write " + path.string() + ": " + errno_text(errno));
    }
    return {};
}

// A relative symbolic link, as sysfs makes them.
Result<void> link(const std::string& target, const fs::path& at) {
    if (auto made = make_dirs(at.parent_path()); !made) return made;
    std::error_code error;
    fs::create_symlink(target, at, error);
    if (error) return fail(kExitFailure, "cannot link " + at.string() + ": " + error.message());
    return {};
}

// Runs each step until one fails.
template <class... Steps>
Result<void> all(Steps&&... steps) {
    Result<void> result;
    ((result ? (result = steps(), 0) : 0), ...);
    return result;
}

struct PciPlace {
    std::string bdf;       // "0000:03:00.0"
    std::string root_bus;  // "pci0000:00"
    unsigned location_id = 0;
    unsigned domain = 0;
};

PciPlace place_of(const DrmGpuSpec& gpu) {
    const PciAddress address = parse_pci_address(gpu.pci_bus_id).value_or(PciAddress{});
    std::array<char, 32> root_bus{};
    std::snprintf(root_bus.data(), root_bus.size(), "pci%04x:00", address.domain & 0xFFFFU);
    return PciPlace{gpu.pci_bus_id, root_bus.data(),
                    address.bus << 8 | address.device << 3 | address.function, address.domain};
}

// A DRM minor's "dev" attribute: major:minor of its character device.
std::string dev_numbers(unsigned minor) {
    return std::to_string(kDrmMajor) + ":" + std::to_string(minor) + "\n";
}

// A DRM minor's directory under the device, linked from class/drm.
Result<void> create_minor(const fs::path& sys, const PciPlace& place, const std::string& name,
                          unsigned minor) {
    const fs::path dir = sys / "devices" / place.root_bus / place.bdf / "drm" / name;
    return all([&] { return write_text(dir / "dev", dev_numbers(minor)); },
               [&] {
                   return write_text(dir / "uevent", "MAJOR=226\nMINOR=" + std::to_string(minor) +
                                                         "\nDEVNAME=dri/" + name +
                                                         "\nDEVTYPE=drm_minor\n");
               },
               [&] { return link("../../../" + place.bdf, dir / "device"); },
               [&] {
                   return link("../../devices/" + place.root_bus + "/" + place.bdf + "/drm/" + name,
                               sys / "class" / "drm" / name);
               });
}

std::uint64_t microunits(double value) {
    return static_cast<std::uint64_t>(std::llround(value * 1e6));
}

Result<void> create_hwmon(const fs::path& sys, const PciPlace& place, const DrmGpuSpec& gpu,
                          unsigned number) {
    const std::string name = "hwmon" + std::to_string(number);
    const fs::path dir = sys / "devices" / place.root_bus / place.bdf / "hwmon" / name;
    auto made =
        all([&] { return write_text(dir / "name", gpu.driver + "\n"); },
            [&] { return link("../../../" + place.bdf, dir / "device"); },
            [&] {
                return link("../../devices/" + place.root_bus + "/" + place.bdf + "/hwmon/" + name,
                            sys / "class" / "hwmon" / name);
            });
    if (!made) return made;
    if (gpu.temperature_celsius) {
        // Millidegrees; amdgpu labels its channels, "edge" being the board's.
        if (auto w = write_text(dir / "temp1_input", line(*gpu.temperature_celsius * 1000ULL)); !w)
            return w;
        if (gpu.driver == "amdgpu") {
            if (auto w = write_text(dir / "temp1_label", "edge\n"); !w) return w;
        }
    }
    if (gpu.power_watts) {
        // Microwatts; or, for drivers that meter energy (i915, xe), a microjoule counter
        // that stands still (gpusim has no daemon): as if an hour at power_watts had passed.
        const bool energy = gpu.energy_only;
        const std::uint64_t value =
            energy ? microunits(*gpu.power_watts * 3600) : microunits(*gpu.power_watts);
        if (auto w = write_text(dir / (energy ? "energy1_input" : "power1_average"), line(value));
            !w)
            return w;
    }
    if (gpu.power_limit_watts) {
        // amdgpu's limit is power1_cap; i915 and xe call theirs power1_max.
        const char* file = gpu.driver == "amdgpu" ? "power1_cap" : "power1_max";
        if (auto w = write_text(dir / file, line(microunits(*gpu.power_limit_watts))); !w) return w;
    }
    return {};
}

// amdgpu's own attributes on the PCI device.
Result<void> create_amdgpu_files(const fs::path& dev, const DrmGpuSpec& gpu) {
    std::vector<std::pair<const char*, std::optional<std::uint64_t>>> numbers = {
        {"mem_info_vram_total", gpu.memory_total_bytes},
        {"mem_info_vram_used", gpu.memory_used_bytes},
        {"mem_info_vis_vram_total", gpu.memory_total_bytes},
        {"mem_info_vis_vram_used", gpu.memory_used_bytes},
        {"mem_info_gtt_total", gpu.gtt_total_bytes},
        {"mem_info_gtt_used", gpu.gtt_used_bytes},
        {"gpu_busy_percent", gpu.busy_percent},
    };
    for (const auto& [file, value] : numbers) {
        if (!value) continue;
        if (auto w = write_text(dev / file, line(*value)); !w) return w;
    }
    if (gpu.product_name) {
        if (auto w = write_text(dev / "product_name", *gpu.product_name + "\n"); !w) return w;
    }
    // 64 bits the board's serial EEPROM would give; deterministic per bus address.
    std::uint64_t id = 0x9E3779B97F4A7C15ULL;
    for (char c : gpu.pci_bus_id) id = (id ^ static_cast<unsigned char>(c)) * 0x100000001B3ULL;
    std::array<char, 24> unique{};
    std::snprintf(unique.data(), unique.size(), "%016llx\n", static_cast<unsigned long long>(id));
    return write_text(dev / "unique_id", unique.data());
}

Result<void> create_pci_device(const fs::path& sys, const DrmGpuSpec& gpu, const PciPlace& place,
                               unsigned drm_index, unsigned& next_hwmon) {
    const fs::path dev = sys / "devices" / place.root_bus / place.bdf;
    const std::string driver_dir = "bus/pci/drivers/" + gpu.driver;
    auto made =
        all([&] { return write_text(dev / "vendor", hex(gpu.vendor_id, 4)); },
            [&] { return write_text(dev / "device", hex(gpu.device_id, 4)); },
            [&] { return write_text(dev / "subsystem_vendor", hex(gpu.vendor_id, 4)); },
            [&] { return write_text(dev / "subsystem_device", hex(gpu.device_id, 4)); },
            [&] { return write_text(dev / "class", hex(gpu.pci_class, 6)); },
            [&] { return write_text(dev / "revision", hex(0, 2)); },
            [&] { return write_text(dev / "power" / "runtime_status", "active\n"); },
            [&] { return make_dirs(sys / driver_dir); },
            [&] { return link("../../../" + driver_dir, dev / "driver"); },
            [&] {
                return link("../../../../devices/" + place.root_bus + "/" + place.bdf,
                            sys / driver_dir / place.bdf);
            },
            [&] {
                return link("../../../devices/" + place.root_bus + "/" + place.bdf,
                            sys / "bus" / "pci" / "devices" / place.bdf);
            },
            [&] { return create_minor(sys, place, "card" + std::to_string(drm_index), drm_index); },
            [&] {
                const unsigned render = kRenderMinorBase + drm_index;
                return create_minor(sys, place, "renderD" + std::to_string(render), render);
            });
    if (!made) return made;
    if (gpu.driver == "amdgpu") {
        if (auto w = create_amdgpu_files(dev, gpu); !w) return w;
    }
    if (!gpu.no_hwmon) return create_hwmon(sys, place, gpu, next_hwmon++);
    return {};
}

}  // namespace

std::map<unsigned, unsigned> kfd_gpu_ids(const SimConfig& config) {
    std::map<unsigned, unsigned> ids;
    unsigned node = 1;  // node 0 is the CPU
    for (unsigned i = 0; i < config.drm_gpus.size(); ++i) {
        const DrmGpuSpec& gpu = config.drm_gpus[i];
        if (gpu.driver != "amdgpu") continue;
        ids[i] = 41000 + 1024 * node + (place_of(gpu).location_id & 1023);
        ++node;
    }
    return ids;
}

std::filesystem::path kfd_proc_dir(const Root& root) {
    return sys_dir(root) / "devices" / "virtual" / "kfd" / "kfd" / "proc";
}

namespace {

// AMD's compute driver: node 0 is the CPU, then one node per amdgpu GPU, whose gpu_id is
// the id kfd's proc/<pid>/vram_<gpu_id> files use and whose properties locate it on PCI.
Result<void> create_kfd(const Root& root, const SimConfig& config) {
    const fs::path sys = sys_dir(root);
    const fs::path kfd = sys / "devices" / "virtual" / "kfd" / "kfd";
    const fs::path nodes = kfd / "topology" / "nodes";
    auto made =
        all([&] { return make_dirs(kfd / "proc"); },
            [&] { return write_text(kfd / "topology" / "generation_id", "1\n"); },
            [&] { return link("../../devices/virtual/kfd/kfd", sys / "class" / "kfd" / "kfd"); },
            [&] { return write_text(nodes / "0" / "gpu_id", "0\n"); },
            [&] { return write_text(nodes / "0" / "name", "\n"); },
            [&] {
                return write_text(nodes / "0" / "properties",
                                  "cpu_cores_count 64\nsimd_count 0\nmem_banks_count 1\n"
                                  "vendor_id 0\ndevice_id 0\nlocation_id 0\ndomain 0\n"
                                  "drm_render_minor 0\nhive_id 0\nnum_xcc 0\n");
            });
    if (!made) return made;
    unsigned node = 1;
    const std::map<unsigned, unsigned> gpu_ids = kfd_gpu_ids(config);
    for (unsigned i = 0; i < config.drm_gpus.size(); ++i) {
        const DrmGpuSpec& gpu = config.drm_gpus[i];
        if (gpu.driver != "amdgpu") continue;
        const PciPlace place = place_of(gpu);
        const fs::path dir = nodes / std::to_string(node);
        const unsigned gpu_id = gpu_ids.at(i);
        const std::string properties =
            "cpu_cores_count 0\nsimd_count 416\nmem_banks_count 1\nvendor_id " +
            std::to_string(gpu.vendor_id) + "\ndevice_id " + std::to_string(gpu.device_id) +
            "\nlocation_id " + std::to_string(place.location_id) + "\ndomain " +
            std::to_string(place.domain) + "\ndrm_render_minor " +
            std::to_string(kRenderMinorBase + i) + "\nhive_id 0\nnum_xcc 1\n";
        auto written = all([&] { return write_text(dir / "gpu_id", line(gpu_id)); },
                           [&] { return write_text(dir / "name", "amdgpu\n"); },
                           [&] { return write_text(dir / "properties", properties); });
        if (!written) return written;
        ++node;
    }
    return write_text(kfd_node(root), "", 0666);
}

}  // namespace

Result<void> create_drm_host(const Root& root, const SimConfig& config) {
    const fs::path sys = sys_dir(root);
    if (auto made = write_text(sys / "class" / "drm" / "version", "drm 1.1.0 20060810\n"); !made)
        return made;
    unsigned next_hwmon = 0;
    bool any_amdgpu = false;
    for (unsigned i = 0; i < config.drm_gpus.size(); ++i) {
        const DrmGpuSpec& gpu = config.drm_gpus[i];
        any_amdgpu |= gpu.driver == "amdgpu";
        auto made = all([&] { return create_pci_device(sys, gpu, place_of(gpu), i, next_hwmon); },
                        [&] { return write_text(drm_card_node(root, i), "", 0666); },
                        [&] { return write_text(drm_render_node(root, i), "", 0666); });
        if (!made) return made;
    }
    if (any_amdgpu) return create_kfd(root, config);
    return {};
}

Result<void> remove_drm_host(const Root& root) {
    std::error_code error;
    for (const fs::path& path :
         {sys_dir(root), root.dev_dir() / "dri", kfd_node(root), root.state_dir() / "kfd"}) {
        fs::remove_all(path, error);
        if (error)
            return fail(kExitFailure, "cannot remove " + path.string() + ": " + error.message());
    }
    return {};
}

}  // namespace gpusim

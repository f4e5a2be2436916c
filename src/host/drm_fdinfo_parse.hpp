// The DRM client usage stats a driver prints in /proc/PID/fdinfo/FD for an open DRM
// device file (kernel Documentation/gpu/drm-usage-stats.rst), and amdgpu's older
// format of kernels 5.14 to 5.18. Pure: text in, values out; reading is
// drm_fdinfo_reader.hpp's business.
//
// The standard format, one "key:<whitespace>value" per line, numbers with an optional
// unit ("1024 KiB", "25662044495 ns"):
//   drm-driver, drm-pdev (PCI address), drm-client-id (one per struct drm_file: the same
//   on every fd dup'd or inherited from one open),
//   drm-engine-<e>: N ns, drm-engine-capacity-<e>: N, drm-cycles-<e>, drm-total-cycles-<e>,
//   drm-{total,shared,resident,active,purgeable}-<region>: size, and the deprecated
//   drm-memory-<region> (an alias of drm-total-<region>).
// amdgpu before 5.19 printed instead "pdev:", "pasid:", "vram mem: N kB", "gtt mem:",
// "cpu mem:" and per ring "gfx0: 12.5%", "compute3: 4.2%": utilisation directly.
// Unknown keys (driver-specific ones such as amd-evicted-vram) are ignored.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpukill {

struct DrmEngineCounters {
    std::string name;                           // "gfx", "render", "rcs", "gfx0" (old amdgpu)
    std::optional<std::uint64_t> busy_ns;       // drm-engine-<name>
    std::optional<std::uint64_t> cycles;        // drm-cycles-<name>
    std::optional<std::uint64_t> total_cycles;  // drm-total-cycles-<name>: the GPU's clock
    std::uint64_t capacity = 1;                 // identical engines in the group; absent: 1
    std::optional<double> busy_percent;         // old amdgpu: the driver's own percentage
};

struct DrmMemoryRegion {
    std::string name;  // "vram", "gtt", "cpu" (amdgpu), "system0", "local0" (i915), "vram0" (xe)
    std::optional<std::uint64_t> total_bytes;
    std::optional<std::uint64_t> shared_bytes;
    std::optional<std::uint64_t> resident_bytes;
    std::optional<std::uint64_t> active_bytes;
    std::optional<std::uint64_t> purgeable_bytes;
    std::optional<std::uint64_t> legacy_bytes;  // drm-memory-<region>, or old amdgpu "vram mem"
};

// One open DRM file as its driver describes it.
struct DrmFdinfo {
    std::string driver;                      // drm-driver; "amdgpu" for the old format
    std::optional<std::string> pdev;         // normalised PCI bus id ("0000:03:00.0")
    std::optional<std::uint64_t> client_id;  // drm-client-id; the old format's pasid
    std::vector<DrmEngineCounters> engines;  // in the order first named
    std::vector<DrmMemoryRegion> regions;    // in the order first named
    bool legacy_amdgpu = false;              // the pre-5.19 amdgpu format
};

// Empty when the text is not a DRM client's: an ordinary file's fdinfo (pos, flags,
// mnt_id, ino only), /dev/kfd's, or a driver that prints no usage stats.
std::optional<DrmFdinfo> parse_drm_fdinfo(std::string_view text);

// GPU memory the client holds, in bytes. Device-local regions only ("vram" for amdgpu,
// "vramN" for xe, "localN" and "stolen-localN" for i915): system memory a discrete GPU
// maps (gtt, cpu, system*) is the host's RAM, not the GPU's. A client whose driver names
// no device-local region is on an integrated GPU, whose memory is system memory: then
// every region counts (regions are disjoint placements, so the sum counts nothing twice).
// Per region the resident size is preferred, then drm-memory-* (deprecated), then
// drm-total-*. Empty when the driver reports no memory at all.
std::optional<std::uint64_t> client_gpu_memory_bytes(const DrmFdinfo& client);

}  // namespace gpukill

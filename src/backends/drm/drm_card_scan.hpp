// Which DRM devices are GPUs, from sysfs alone: SYSFS/class/drm/cardN, its driver and its
// PCI parent. Only PCI devices whose class is a display controller or a processing
// accelerator, with a render node (so they run work, not just drive a screen), count.
// Cards of the proprietary NVIDIA driver are left to the NVML backend.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/gpu.hpp"
#include "model/host_roots.hpp"
#include "model/result.hpp"

namespace gpukill::drm {

// What sysfs says about one cardN, before deciding whether it is a GPU.
struct CardFacts {
    std::string card;                       // "card0"
    std::optional<std::string> pci_bus_id;  // normalised; empty for a non-PCI parent
    std::optional<std::uint32_t> vendor_id;
    std::optional<std::uint32_t> device_id;
    std::optional<std::uint32_t> pci_class;
    std::string driver;                      // the DRM driver: "amdgpu", "i915", "xe", ...
    std::optional<std::string> render_node;  // "renderD128"
};

// Why a card is not a GPU gpukill lists; empty when it is one. Pure.
std::optional<std::string> reason_not_a_gpu(const CardFacts& facts);

// A DRM card that is a GPU.
struct DrmCard {
    std::string card;  // "card0"
    unsigned card_minor = 0;
    std::optional<std::string> render_node;  // "renderD128"
    std::string pci_bus_id;                  // "0000:03:00.0"
    std::uint32_t vendor_id = 0;
    std::uint32_t device_id = 0;
    Vendor vendor = Vendor::other;
    std::string driver;
    std::string device_dir;  // SYSFS/class/drm/cardN/device: the driver's attributes
};

struct SkippedCard {
    std::string card;
    std::string reason;
};

struct CardScan {
    std::vector<DrmCard> gpus;  // by card minor
    std::vector<SkippedCard> skipped;
    std::vector<std::string> problems;  // cards whose attributes could not be read
};

// Scans SYSFS/class/drm. Fails only when that directory cannot be listed (errno ENOENT
// when the host has no DRM at all).
Result<CardScan> scan_drm_cards(const HostRoots& roots);

// The name to show: the driver's product name when it has one, else vendor and device
// id ("AMD GPU 0x740f"), else the driver ("virtio_gpu GPU 0x1050"). Pure.
std::string display_name(const DrmCard& card, const std::optional<std::string>& product_name);

}  // namespace gpukill::drm

#include "state/defaults.hpp"

#include <array>
#include <cstdint>
#include <cstdio>

#include "state/pci.hpp"

namespace gpusim {

namespace {

// Bus numbers of the eight GPUs on an HGX H100 baseboard, in nvidia-smi order.
constexpr std::array<unsigned, 8> kHgxBuses{0x18, 0x2A, 0x3A, 0x5D, 0x9A, 0xAB, 0xBA, 0xDB};

// A real H100 80GB reports 81559 MiB through NVML; the simulator does the same.
constexpr std::uint64_t kH100MemoryBytes = 81559ULL << 20;

// splitmix64: a fixed mixing function so every host gets the same UUIDs for the same index.
std::uint64_t mix(std::uint64_t value) {
    value += 0x9E3779B97F4A7C15ULL;
    value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9ULL;
    value = (value ^ (value >> 27)) * 0x94D049BB133111EBULL;
    return value ^ (value >> 31);
}

std::string deterministic_uuid(unsigned index) {
    const std::uint64_t high = mix(0x67707573696D0000ULL + index);  // "gpusim" seed
    const std::uint64_t low = mix(high);
    std::array<char, 64> buffer{};
    std::snprintf(buffer.data(), buffer.size(), "GPU-%08x-%04x-%04x-%04x-%012llx",
                  static_cast<unsigned>(high >> 32), static_cast<unsigned>((high >> 16) & 0xFFFF),
                  static_cast<unsigned>(high & 0xFFFF), static_cast<unsigned>(low >> 48),
                  static_cast<unsigned long long>(low & 0xFFFFFFFFFFFFULL));
    return buffer.data();
}

}  // namespace

DriverSpec default_driver(bool legacy) {
    if (legacy) return DriverSpec{"470.223.02", "11.470.223.02", 11040, true};
    return DriverSpec{"550.54.15", "12.550.54.15", 12040, false};
}

GpuSpec default_gpu(unsigned index) {
    GpuSpec gpu;
    gpu.name = "NVIDIA H100 80GB HBM3";
    gpu.uuid = deterministic_uuid(index);
    gpu.pci_bus_id = format_bus_id(PciAddress{index / 8, kHgxBuses[index % 8], 0, 0});
    gpu.minor = index;
    gpu.pci_device_id = 0x233010DE;     // device 0x2330 (H100 SXM5 80GB), vendor 0x10DE
    gpu.pci_subsystem_id = 0x16C110DE;  // NVIDIA's own board
    gpu.memory_total_bytes = kH100MemoryBytes;
    gpu.memory_reserved_bytes = 0;
    gpu.base_utilization_percent = {0, Failure::none};
    gpu.temperature_celsius = {33, Failure::none};
    gpu.power_watts = {70.0, Failure::none};
    gpu.power_limit_watts = {700.0, Failure::none};
    gpu.persistence_mode = {true, Failure::none};
    gpu.mig_mode = {false, Failure::none};
    gpu.ecc_errors_corrected = {0, Failure::none};
    gpu.ecc_errors_uncorrected = {0, Failure::none};
    // An H100 SXM5's boost and HBM3 clocks; its HBM a few degrees above the die at idle.
    gpu.sm_clock_mhz = {1980, Failure::none};
    gpu.memory_clock_mhz = {2619, Failure::none};
    gpu.memory_temperature_celsius = {38, Failure::none};
    gpu.pcie_replay_count = {0, Failure::none};
    gpu.encoder_utilization_percent = {0, Failure::none};
    gpu.decoder_utilization_percent = {0, Failure::none};
    gpu.remapped_rows_correctable = {0, Failure::none};
    gpu.remapped_rows_uncorrectable = {0, Failure::none};
    gpu.row_remap_failure = {false, Failure::none};
    return gpu;
}

}  // namespace gpusim

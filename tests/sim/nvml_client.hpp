#pragma once
// The tests' own view of the NVML ABI, written independently of sim/nvml/nvml_abi.h so the
// two cross-check each other: plain structs with the byte layout of NVIDIA's nvml.h, and the
// built library loaded with dlopen exactly as gpukill loads a driver.

#include <cstddef>
#include <filesystem>
#include <string>

namespace nvml_client {

using Return = int;
using Device = struct OpaqueDevice*;

inline constexpr Return kSuccess = 0;
inline constexpr Return kUninitialized = 1;
inline constexpr Return kInvalidArgument = 2;
inline constexpr Return kNotSupported = 3;
inline constexpr Return kNoPermission = 4;
inline constexpr Return kInsufficientSize = 7;
inline constexpr Return kDriverNotLoaded = 9;
inline constexpr Return kGpuIsLost = 15;
inline constexpr Return kArgumentVersionMismatch = 25;

inline constexpr unsigned long long kValueNotAvailable = ~0ULL;

struct ProcessV1 {  // nvmlProcessInfo_v1_t
    unsigned int pid;
    unsigned long long used_gpu_memory;
};

struct ProcessV2 {  // nvmlProcessInfo_v2_t: what _v2 and _v3 write
    unsigned int pid;
    unsigned long long used_gpu_memory;
    unsigned int gpu_instance_id;
    unsigned int compute_instance_id;
};

struct Memory {  // nvmlMemory_t
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};

struct MemoryV2 {  // nvmlMemory_v2_t
    unsigned int version;
    unsigned long long total;
    unsigned long long reserved;
    unsigned long long free;
    unsigned long long used;
};
inline constexpr unsigned int kMemoryV2Version = sizeof(MemoryV2) | (2U << 24);

struct PciInfo {  // nvmlPciInfo_t
    char bus_id_legacy[16];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pci_device_id;
    unsigned int pci_subsystem_id;
    char bus_id[32];
};

struct Utilization {
    unsigned int gpu;
    unsigned int memory;
};

static_assert(sizeof(ProcessV1) == 16 && sizeof(ProcessV2) == 24);
static_assert(sizeof(MemoryV2) == 40 && kMemoryV2Version == 0x02000028U);
static_assert(sizeof(PciInfo) == 68 && offsetof(PciInfo, bus_id) == 36);

// A dlopen'ed NVML; dlclose'd on destruction.
class Library {
  public:
    explicit Library(const std::filesystem::path& path);
    ~Library();
    Library(const Library&) = delete;
    Library& operator=(const Library&) = delete;

    bool loaded() const { return handle_ != nullptr; }
    const std::string& load_error() const { return error_; }
    void* symbol(const char* name) const;

    // The entry point `name` as a function of type `Signature`, or nullptr when absent.
    template <class Signature>
    Signature* fn(const char* name) const {
        return reinterpret_cast<Signature*>(symbol(name));
    }

    // The calls most tests make.
    Return init() const { return fn<Return()>("nvmlInit_v2")(); }
    Return shutdown() const { return fn<Return()>("nvmlShutdown")(); }
    Return count(unsigned int* out) const {
        return fn<Return(unsigned int*)>("nvmlDeviceGetCount_v2")(out);
    }
    Device device(unsigned int index) const;

  private:
    void* handle_ = nullptr;
    std::string error_;
};

}  // namespace nvml_client

// gpukill's own declarations of the NVML C API subset it calls, written from
// NVIDIA's public nvml.h. No NVIDIA header or library is needed to build:
// the library is loaded with dlopen at run time (nvml_library.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpukill::nvml {

extern "C" {
struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;
using nvmlReturn_t = int;
}

inline constexpr nvmlReturn_t NVML_SUCCESS = 0;
inline constexpr nvmlReturn_t NVML_ERROR_UNINITIALIZED = 1;
inline constexpr nvmlReturn_t NVML_ERROR_INVALID_ARGUMENT = 2;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_SUPPORTED = 3;
inline constexpr nvmlReturn_t NVML_ERROR_NO_PERMISSION = 4;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_FOUND = 6;
inline constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_SIZE = 7;
inline constexpr nvmlReturn_t NVML_ERROR_DRIVER_NOT_LOADED = 9;
inline constexpr nvmlReturn_t NVML_ERROR_FUNCTION_NOT_FOUND = 13;
inline constexpr nvmlReturn_t NVML_ERROR_GPU_IS_LOST = 15;
inline constexpr nvmlReturn_t NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25;
inline constexpr nvmlReturn_t NVML_ERROR_UNKNOWN = 999;

// usedGpuMemory when the driver cannot say (e.g. Windows WDDM, some containers).
inline constexpr unsigned long long NVML_VALUE_NOT_AVAILABLE = ~0ULL;

inline constexpr unsigned NVML_DEVICE_NAME_V2_BUFFER_SIZE = 96;
inline constexpr unsigned NVML_DEVICE_UUID_V2_BUFFER_SIZE = 96;
inline constexpr unsigned NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE = 80;
inline constexpr unsigned NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE = 32;
inline constexpr unsigned NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE = 16;

inline constexpr int NVML_TEMPERATURE_GPU = 0;
inline constexpr int NVML_MEMORY_ERROR_TYPE_CORRECTED = 0;
inline constexpr int NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1;
inline constexpr int NVML_VOLATILE_ECC = 0;

// nvmlClockType_t: the clocks nvmlDeviceGetClockInfo reports, in MHz.
inline constexpr int NVML_CLOCK_SM = 1;
inline constexpr int NVML_CLOCK_MEM = 2;

// nvmlDeviceGetFieldValues' field ids (nvml.h's NVML_FI_*), and the scope that sums the
// NVLink throughput counters over every link.
inline constexpr unsigned NVML_FI_DEV_MEMORY_TEMP = 82;
inline constexpr unsigned NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX = 138;  // KiB
inline constexpr unsigned NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX = 139;  // KiB
inline constexpr unsigned NVML_SCOPE_ALL_LINKS = 0xFFFFFFFFU;

// nvmlValueType_t: which member of nvmlValue_t a field value fills.
inline constexpr int NVML_VALUE_TYPE_DOUBLE = 0;
inline constexpr int NVML_VALUE_TYPE_UNSIGNED_INT = 1;
inline constexpr int NVML_VALUE_TYPE_UNSIGNED_LONG = 2;
inline constexpr int NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3;
inline constexpr int NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4;
inline constexpr int NVML_VALUE_TYPE_SIGNED_INT = 5;

// NVLink: links are numbered 0..NVML_NVLINK_MAX_LINKS-1 (18 since Hopper; older parts
// have fewer and answer INVALID_ARGUMENT beyond their last link).
inline constexpr unsigned NVML_NVLINK_MAX_LINKS = 18;
inline constexpr int NVML_FEATURE_ENABLED = 1;  // nvmlEnableState_t

extern "C" {
struct nvmlMemory_t {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};

struct nvmlMemory_v2_t {
    unsigned int version;
    unsigned long long total;
    unsigned long long reserved;
    unsigned long long free;
    unsigned long long used;
};

struct nvmlUtilization_t {
    unsigned int gpu;
    unsigned int memory;
};

struct nvmlPciInfo_t {
    char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
};

union nvmlValue_t {
    double dVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    long long sllVal;
    int siVal;
};

struct nvmlFieldValue_t {
    unsigned int fieldId;
    unsigned int scopeId;  // "unused" before the NVLink throughput fields; 0 there
    long long timestamp;
    long long latencyUsec;
    int valueType;  // nvmlValueType_t
    nvmlReturn_t nvmlReturn;
    nvmlValue_t value;
};

// Used by the plain (unversioned) process-list calls.
struct nvmlProcessInfo_v1_t {
    unsigned int pid;
    unsigned long long usedGpuMemory;
};

// Used by the _v2 and the _v3 process-list calls. Drivers write 24-byte entries
// for _v3 as well; some nvml.h releases declared a 32-byte struct for it, and
// tools that trusted that stride read garbage PIDs on R535 drivers.
struct nvmlProcessInfo_v2_t {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
};
}

static_assert(sizeof(nvmlProcessInfo_v1_t) == 16);
static_assert(sizeof(nvmlProcessInfo_v2_t) == 24);
static_assert(sizeof(nvmlMemory_v2_t) == 40);
static_assert(sizeof(nvmlPciInfo_t) == 68);
static_assert(sizeof(nvmlFieldValue_t) == 40);
static_assert(offsetof(nvmlFieldValue_t, value) == 32);

// NVML_STRUCT_VERSION(Memory, 2)
inline constexpr unsigned int nvmlMemory_v2 =
    static_cast<unsigned int>(sizeof(nvmlMemory_v2_t)) | (2U << 24U);

}  // namespace gpukill::nvml

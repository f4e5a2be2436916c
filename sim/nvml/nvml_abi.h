#pragma once
// The part of NVIDIA's NVML C API that the simulated driver provides, declared here from the
// public NVML reference (docs.nvidia.com/deploy/nvml-api). gpukill's src/ has its own
// declarations on purpose: neither side includes the other's, so each checks the other.
//
// GPUSIM_LEGACY_DRIVER builds an R470-era driver: without the _v3 process queries and without
// nvmlDeviceGetMemoryInfo_v2, which those drivers do not export.

#include <stddef.h>

#define GPUSIM_NVML_EXPORT __attribute__((visibility("default")))

// In C++ the enums get a fixed underlying type (same size and calling convention as the C
// enums): C callers may pass any int, and loading an out-of-range value into an enum without
// one is undefined behaviour. The entry points then reject such values as NVML does.
#ifdef __cplusplus
#define GPUSIM_NVML_ENUM_BASE : int
#else
#define GPUSIM_NVML_ENUM_BASE
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nvmlReturn_enum GPUSIM_NVML_ENUM_BASE {
    NVML_SUCCESS = 0,
    NVML_ERROR_UNINITIALIZED = 1,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_NO_PERMISSION = 4,
    NVML_ERROR_ALREADY_INITIALIZED = 5,
    NVML_ERROR_NOT_FOUND = 6,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
    NVML_ERROR_INSUFFICIENT_POWER = 8,
    NVML_ERROR_DRIVER_NOT_LOADED = 9,
    NVML_ERROR_TIMEOUT = 10,
    NVML_ERROR_IRQ_ISSUE = 11,
    NVML_ERROR_LIBRARY_NOT_FOUND = 12,
    NVML_ERROR_FUNCTION_NOT_FOUND = 13,
    NVML_ERROR_CORRUPTED_INFOROM = 14,
    NVML_ERROR_GPU_IS_LOST = 15,
    NVML_ERROR_RESET_REQUIRED = 16,
    NVML_ERROR_OPERATING_SYSTEM = 17,
    NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
    NVML_ERROR_IN_USE = 19,
    NVML_ERROR_MEMORY = 20,
    NVML_ERROR_NO_DATA = 21,
    NVML_ERROR_VGPU_ECC_NOT_SUPPORTED = 22,
    NVML_ERROR_INSUFFICIENT_RESOURCES = 23,
    NVML_ERROR_FREQ_NOT_SUPPORTED = 24,
    NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
    NVML_ERROR_DEPRECATED = 26,
    NVML_ERROR_UNKNOWN = 999
} nvmlReturn_t;

typedef struct nvmlDevice_st* nvmlDevice_t;

#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 80
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE 80
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16

// usedGpuMemory when the driver cannot tell (and MIG instance ids when MIG is off).
#define NVML_VALUE_NOT_AVAILABLE (0xFFFFFFFFFFFFFFFFULL)
#define NVML_INSTANCE_ID_NOT_AVAILABLE (0xFFFFFFFFU)

#define NVML_INIT_FLAG_NO_GPUS 1U
#define NVML_INIT_FLAG_NO_ATTACH 2U

typedef struct nvmlPciInfo_st {
    char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];  // "0000:18:00.0"
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;                        // device id << 16 | vendor id
    unsigned int pciSubSystemId;                     // subsystem id << 16 | subsystem vendor id
    char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];  // "00000000:18:00.0"
} nvmlPciInfo_t;

typedef struct nvmlMemory_st {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;  // includes the driver's reservation
} nvmlMemory_t;

typedef struct nvmlMemory_v2_st {
    unsigned int version;  // must be nvmlMemory_v2
    unsigned long long total;
    unsigned long long reserved;
    unsigned long long free;
    unsigned long long used;  // excludes the reservation
} nvmlMemory_v2_t;

#define NVML_STRUCT_VERSION(data, ver) \
    (unsigned int)(sizeof(nvml##data##_v##ver##_t) | ((unsigned int)(ver) << 24U))
#define nvmlMemory_v2 NVML_STRUCT_VERSION(Memory, 2)

typedef struct nvmlUtilization_st {
    unsigned int gpu;
    unsigned int memory;
} nvmlUtilization_t;

// Entries of the plain process queries.
typedef struct nvmlProcessInfo_v1_st {
    unsigned int pid;
    unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;

// Entries of the _v2 and _v3 process queries: 24 bytes. Some nvml.h releases declared a
// 32-byte struct for _v3, but the drivers write 24-byte entries; a 32-byte stride reads garbage.
typedef struct nvmlProcessInfo_v2_st {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvmlProcessInfo_v2_t;

typedef enum nvmlTemperatureSensors_enum GPUSIM_NVML_ENUM_BASE {
    NVML_TEMPERATURE_GPU = 0
} nvmlTemperatureSensors_t;

typedef enum nvmlEnableState_enum GPUSIM_NVML_ENUM_BASE {
    NVML_FEATURE_DISABLED = 0,
    NVML_FEATURE_ENABLED = 1
} nvmlEnableState_t;

typedef enum nvmlMemoryErrorType_enum GPUSIM_NVML_ENUM_BASE {
    NVML_MEMORY_ERROR_TYPE_CORRECTED = 0,
    NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1
} nvmlMemoryErrorType_t;

typedef enum nvmlEccCounterType_enum GPUSIM_NVML_ENUM_BASE {
    NVML_VOLATILE_ECC = 0,
    NVML_AGGREGATE_ECC = 1
} nvmlEccCounterType_t;

#define NVML_DEVICE_MIG_DISABLE 0U
#define NVML_DEVICE_MIG_ENABLE 1U

// Initialisation (reference counted) and errors.
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlInit_v2(void);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlInit(void);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlInitWithFlags(unsigned int flags);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlShutdown(void);
GPUSIM_NVML_EXPORT const char* nvmlErrorString(nvmlReturn_t result);

// System.
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlSystemGetNVMLVersion(char* version, unsigned int length);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion(int* cudaDriverVersion);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* cudaDriverVersion);

// Enumeration and identity (these still answer for a lost GPU).
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* deviceCount);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetCount(unsigned int* deviceCount);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index,
                                                              nvmlDevice_t* device);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index,
                                                           nvmlDevice_t* device);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name,
                                                  unsigned int length);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid,
                                                  unsigned int length);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t* pci);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t* pci);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_t* pci);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device,
                                                         unsigned int* minorNumber);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int* index);

// Metrics.
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory);
#ifndef GPUSIM_LEGACY_DRIVER
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device,
                                                           nvmlMemory_v2_t* memory);
#endif
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device,
                                                              nvmlUtilization_t* utilization);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device,
                                                         nvmlTemperatureSensors_t sensorType,
                                                         unsigned int* temp);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int* power);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device,
                                                                    unsigned long long* energy);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device,
                                                                  unsigned int* limit);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device,
                                                                unsigned int* limit);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device,
                                                            nvmlMemoryErrorType_t errorType,
                                                            nvmlEccCounterType_t counterType,
                                                            unsigned long long* eccCounts);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device,
                                                             nvmlEnableState_t* mode);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int* currentMode,
                                                     unsigned int* pendingMode);

// Topology: architecture and NVLink (links 0..NVML_NVLINK_MAX_LINKS-1).
#define NVML_NVLINK_MAX_LINKS 18
typedef unsigned int nvmlDeviceArchitecture_t;
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t device,
                                                          nvmlDeviceArchitecture_t* arch);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link,
                                                         nvmlEnableState_t* isActive);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device,
                                                                    unsigned int link,
                                                                    nvmlPciInfo_t* pci);

// Telemetry (dcgm-exporter's default counters): clocks, field values, PCIe replays, video
// engines, remapped rows.
typedef enum nvmlClockType_enum GPUSIM_NVML_ENUM_BASE {
    NVML_CLOCK_GRAPHICS = 0,
    NVML_CLOCK_SM = 1,
    NVML_CLOCK_MEM = 2,
    NVML_CLOCK_VIDEO = 3
} nvmlClockType_t;
#define NVML_FI_DEV_MEMORY_TEMP 82
#define NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX 138  // KiB; scopeId: a link, or UINT_MAX: all
#define NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX 139
typedef enum nvmlValueType_enum GPUSIM_NVML_ENUM_BASE {
    NVML_VALUE_TYPE_DOUBLE = 0,
    NVML_VALUE_TYPE_UNSIGNED_INT = 1,
    NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
    NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
    NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
    NVML_VALUE_TYPE_SIGNED_INT = 5
} nvmlValueType_t;
typedef union nvmlValue_st {
    double dVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    signed long long sllVal;
    int siVal;
} nvmlValue_t;
typedef struct nvmlFieldValue_st {
    unsigned int fieldId;
    unsigned int scopeId;
    long long timestamp;  // microseconds since 1970
    long long latencyUsec;
    nvmlValueType_t valueType;
    nvmlReturn_t nvmlReturn;  // this field's own answer
    nvmlValue_t value;
} nvmlFieldValue_t;
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type,
                                                       unsigned int* clock);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount,
                                                         nvmlFieldValue_t* values);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t device,
                                                               unsigned int* value);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetEncoderUtilization(nvmlDevice_t device,
                                                                unsigned int* utilization,
                                                                unsigned int* samplingPeriodUs);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetDecoderUtilization(nvmlDevice_t device,
                                                                unsigned int* utilization,
                                                                unsigned int* samplingPeriodUs);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device,
                                                          unsigned int* corrRows,
                                                          unsigned int* uncRows,
                                                          unsigned int* isPending,
                                                          unsigned int* failureOccurred);
// Running processes: *infoCount is the capacity in, the number of entries out.
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device,
                                                                     unsigned int* infoCount,
                                                                     nvmlProcessInfo_v1_t* infos);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(
    nvmlDevice_t device, unsigned int* infoCount, nvmlProcessInfo_v2_t* infos);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses(nvmlDevice_t device,
                                                                      unsigned int* infoCount,
                                                                      nvmlProcessInfo_v1_t* infos);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v2(
    nvmlDevice_t device, unsigned int* infoCount, nvmlProcessInfo_v2_t* infos);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses(
    nvmlDevice_t device, unsigned int* infoCount, nvmlProcessInfo_v1_t* infos);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses_v2(
    nvmlDevice_t device, unsigned int* infoCount, nvmlProcessInfo_v2_t* infos);
#ifndef GPUSIM_LEGACY_DRIVER
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(
    nvmlDevice_t device, unsigned int* infoCount, nvmlProcessInfo_v2_t* infos);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(
    nvmlDevice_t device, unsigned int* infoCount, nvmlProcessInfo_v2_t* infos);
GPUSIM_NVML_EXPORT nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses_v3(
    nvmlDevice_t device, unsigned int* infoCount, nvmlProcessInfo_v2_t* infos);
#endif

#ifdef __cplusplus
}  // extern "C"

// The layouts callers compiled against nvml.h rely on, byte for byte.
static_assert(sizeof(nvmlProcessInfo_v1_t) == 16);
static_assert(sizeof(nvmlProcessInfo_v2_t) == 24);
static_assert(offsetof(nvmlProcessInfo_v2_t, usedGpuMemory) == 8);
static_assert(offsetof(nvmlProcessInfo_v2_t, gpuInstanceId) == 16);
static_assert(offsetof(nvmlProcessInfo_v2_t, computeInstanceId) == 20);
static_assert(sizeof(nvmlMemory_t) == 24);
static_assert(sizeof(nvmlMemory_v2_t) == 40);
static_assert(offsetof(nvmlMemory_v2_t, total) == 8);
static_assert(nvmlMemory_v2 == 0x02000028U);
static_assert(sizeof(nvmlUtilization_t) == 8);
static_assert(sizeof(nvmlPciInfo_t) == 68);
static_assert(offsetof(nvmlPciInfo_t, domain) == 16);
static_assert(offsetof(nvmlPciInfo_t, pciSubSystemId) == 32);
static_assert(offsetof(nvmlPciInfo_t, busId) == 36);
static_assert(sizeof(nvmlReturn_t) == 4);
static_assert(sizeof(nvmlFieldValue_t) == 40);
static_assert(offsetof(nvmlFieldValue_t, valueType) == 24);
static_assert(offsetof(nvmlFieldValue_t, value) == 32);
#endif

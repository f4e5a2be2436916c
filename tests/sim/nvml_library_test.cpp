// The simulated NVML library, loaded with dlopen as gpukill does: initialisation, identity,
// metrics, failures from scenarios and the legacy driver's missing symbols.

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "nvml_fixture.hpp"

namespace {

using namespace nvml_client;
using gpusim_test::NvmlTest;

using GetString = Return(Device, char*, unsigned int);
using GetUnsigned = Return(Device, unsigned int*);

TEST_F(NvmlTest, CallsBeforeInitAreUninitialized) {
    ASSERT_NO_FATAL_FAILURE(make_host());
    unsigned int count = 99;
    EXPECT_EQ(nvml().count(&count), kUninitialized);
    Device device = nullptr;
    EXPECT_EQ(nvml().fn<Return(unsigned int, Device*)>("nvmlDeviceGetHandleByIndex_v2")(0, &device),
              kUninitialized);
    EXPECT_EQ(nvml().shutdown(), kUninitialized);
    EXPECT_STREQ(nvml().fn<const char*(Return)>("nvmlErrorString")(kUninitialized),
                 "Uninitialized");
}

TEST_F(NvmlTest, InitWithoutAValidRootIsDriverNotLoaded) {
    ASSERT_NO_FATAL_FAILURE(make_host());
    ::unsetenv("GPUSIM_ROOT");
    EXPECT_EQ(nvml().init(), kDriverNotLoaded);
    ::setenv("GPUSIM_ROOT", (tmp_ / "nowhere").c_str(), 1);
    EXPECT_EQ(nvml().init(), kDriverNotLoaded);
    EXPECT_EQ(nvml().fn<Return()>("nvmlInit")(), kDriverNotLoaded);
}

TEST_F(NvmlTest, InitIsReferenceCounted) {
    ASSERT_NO_FATAL_FAILURE(make_host());
    ASSERT_EQ(nvml().init(), kSuccess);
    ASSERT_EQ(nvml().fn<Return(unsigned int)>("nvmlInitWithFlags")(0), kSuccess);
    unsigned int count = 0;
    EXPECT_EQ(nvml().shutdown(), kSuccess);
    EXPECT_EQ(nvml().count(&count), kSuccess);  // one reference left
    EXPECT_EQ(count, 2U);
    EXPECT_EQ(nvml().shutdown(), kSuccess);
    EXPECT_EQ(nvml().count(&count), kUninitialized);
    EXPECT_EQ(nvml().shutdown(), kUninitialized);
}

TEST_F(NvmlTest, AHostWithoutGpusInitialisesWithACountOfZero) {
    ASSERT_NO_FATAL_FAILURE(start("gpu_count: 0\n"));
    unsigned int count = 7;
    EXPECT_EQ(nvml().count(&count), kSuccess);
    EXPECT_EQ(count, 0U);
    EXPECT_EQ(nvml().device(0), nullptr);
}

TEST_F(NvmlTest, SystemVersions) {
    ASSERT_NO_FATAL_FAILURE(start());
    char version[80] = {};
    ASSERT_EQ(nvml().fn<Return(char*, unsigned int)>("nvmlSystemGetDriverVersion")(version, 80),
              kSuccess);
    EXPECT_STREQ(version, "550.54.15");
    ASSERT_EQ(nvml().fn<Return(char*, unsigned int)>("nvmlSystemGetNVMLVersion")(version, 80),
              kSuccess);
    EXPECT_STREQ(version, "12.550.54.15");
    EXPECT_EQ(nvml().fn<Return(char*, unsigned int)>("nvmlSystemGetDriverVersion")(version, 4),
              kInsufficientSize);
    int cuda = 0;
    ASSERT_EQ(nvml().fn<Return(int*)>("nvmlSystemGetCudaDriverVersion_v2")(&cuda), kSuccess);
    EXPECT_EQ(cuda, 12040);
}

TEST_F(NvmlTest, CountsHandlesAndIndexes) {
    ASSERT_NO_FATAL_FAILURE(start());
    unsigned int count = 0;
    ASSERT_EQ(nvml().fn<Return(unsigned int*)>("nvmlDeviceGetCount")(&count), kSuccess);
    EXPECT_EQ(count, 2U);
    Device device = nullptr;
    const auto by_index = nvml().fn<Return(unsigned int, Device*)>("nvmlDeviceGetHandleByIndex");
    EXPECT_EQ(by_index(2, &device), kInvalidArgument);
    ASSERT_EQ(by_index(1, &device), kSuccess);
    unsigned int index = 9;
    unsigned int minor = 9;
    EXPECT_EQ(nvml().fn<GetUnsigned>("nvmlDeviceGetIndex")(device, &index), kSuccess);
    EXPECT_EQ(nvml().fn<GetUnsigned>("nvmlDeviceGetMinorNumber")(device, &minor), kSuccess);
    EXPECT_EQ(index, 1U);
    EXPECT_EQ(minor, 1U);
    EXPECT_EQ(nvml().fn<GetUnsigned>("nvmlDeviceGetIndex")(nullptr, &index), kInvalidArgument);
}

TEST_F(NvmlTest, NamesAndUuidsWithNvmlBufferRules) {
    ASSERT_NO_FATAL_FAILURE(start());
    const Device device = nvml().device(0);
    ASSERT_NE(device, nullptr);
    char name[96] = {};
    ASSERT_EQ(nvml().fn<GetString>("nvmlDeviceGetName")(device, name, sizeof name), kSuccess);
    EXPECT_STREQ(name, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(nvml().fn<GetString>("nvmlDeviceGetName")(device, name, 21), kInsufficientSize);
    EXPECT_EQ(nvml().fn<GetString>("nvmlDeviceGetName")(device, name, 22), kSuccess);

    char uuid[80] = {};
    ASSERT_EQ(nvml().fn<GetString>("nvmlDeviceGetUUID")(device, uuid, sizeof uuid), kSuccess);
    EXPECT_EQ(std::strlen(uuid), 40U);
    EXPECT_EQ(std::strncmp(uuid, "GPU-", 4), 0);
    EXPECT_EQ(nvml().fn<GetString>("nvmlDeviceGetUUID")(device, uuid, 10), kInsufficientSize);
}

TEST_F(NvmlTest, PciInfoV3HasUpperCaseBusIdsAndV2LeavesTheTailAlone) {
    ASSERT_NO_FATAL_FAILURE(start());
    const Device device = nvml().device(1);
    PciInfo pci{};
    ASSERT_EQ(nvml().fn<Return(Device, PciInfo*)>("nvmlDeviceGetPciInfo_v3")(device, &pci),
              kSuccess);
    EXPECT_STREQ(pci.bus_id, "00000000:2A:00.0");
    EXPECT_STREQ(pci.bus_id_legacy, "0000:2A:00.0");
    EXPECT_EQ(pci.domain, 0U);
    EXPECT_EQ(pci.bus, 0x2AU);
    EXPECT_EQ(pci.device, 0U);
    EXPECT_EQ(pci.pci_device_id, 0x233010DEU);

    // The older entry points fill the 52-byte layout's fields and nothing past them.
    for (const char* name : {"nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo"}) {
        PciInfo old{};
        std::memset(&old, 0x5A, sizeof old);
        ASSERT_EQ(nvml().fn<Return(Device, PciInfo*)>(name)(device, &old), kSuccess) << name;
        EXPECT_STREQ(old.bus_id_legacy, "0000:2A:00.0") << name;
        EXPECT_EQ(old.bus, 0x2AU) << name;
        EXPECT_EQ(static_cast<unsigned char>(old.bus_id[0]), 0x5AU) << name;
    }
}

TEST_F(NvmlTest, MemoryInfoV1AndV2OnAnIdleGpu) {
    ASSERT_NO_FATAL_FAILURE(start("gpus: [{memory_total: 80G, memory_reserved: 512M}]\n"));
    const Device device = nvml().device(0);
    Memory memory{};
    ASSERT_EQ(nvml().fn<Return(Device, Memory*)>("nvmlDeviceGetMemoryInfo")(device, &memory),
              kSuccess);
    EXPECT_EQ(memory.total, 80ULL << 30);
    EXPECT_EQ(memory.used, 512ULL << 20);  // v1 counts the reservation as used
    EXPECT_EQ(memory.free, memory.total - memory.used);

    MemoryV2 v2{};
    v2.version = kMemoryV2Version;
    const auto get_v2 = nvml().fn<Return(Device, MemoryV2*)>("nvmlDeviceGetMemoryInfo_v2");
    ASSERT_NE(get_v2, nullptr);
    ASSERT_EQ(get_v2(device, &v2), kSuccess);
    EXPECT_EQ(v2.total, 80ULL << 30);
    EXPECT_EQ(v2.reserved, 512ULL << 20);
    EXPECT_EQ(v2.used, 0U);
    EXPECT_EQ(v2.free, v2.total - v2.reserved);

    v2.version = sizeof(MemoryV2) | (1U << 24);
    EXPECT_EQ(get_v2(device, &v2), kArgumentVersionMismatch);
}

TEST_F(NvmlTest, MetricsFromTheDefaultScenario) {
    ASSERT_NO_FATAL_FAILURE(start());
    const Device device = nvml().device(0);
    unsigned int value = 0;
    EXPECT_EQ(nvml().fn<Return(Device, int, unsigned int*)>("nvmlDeviceGetTemperature")(device, 0,
                                                                                        &value),
              kSuccess);
    EXPECT_EQ(value, 33U);
    EXPECT_EQ(nvml().fn<Return(Device, int, unsigned int*)>("nvmlDeviceGetTemperature")(device, 7,
                                                                                        &value),
              kInvalidArgument);
    EXPECT_EQ(nvml().fn<GetUnsigned>("nvmlDeviceGetPowerUsage")(device, &value), kSuccess);
    EXPECT_EQ(value, 70000U);
    EXPECT_EQ(nvml().fn<GetUnsigned>("nvmlDeviceGetPowerManagementLimit")(device, &value),
              kSuccess);
    EXPECT_EQ(value, 700000U);
    EXPECT_EQ(nvml().fn<GetUnsigned>("nvmlDeviceGetEnforcedPowerLimit")(device, &value), kSuccess);
    EXPECT_EQ(value, 700000U);
    Utilization utilization{9, 9};
    EXPECT_EQ(nvml().fn<Return(Device, Utilization*)>("nvmlDeviceGetUtilizationRates")(
                  device, &utilization),
              kSuccess);
    EXPECT_EQ(utilization.gpu, 0U);
    int mode = -1;
    EXPECT_EQ(nvml().fn<Return(Device, int*)>("nvmlDeviceGetPersistenceMode")(device, &mode),
              kSuccess);
    EXPECT_EQ(mode, 1);
    unsigned int current = 9;
    unsigned int pending = 9;
    EXPECT_EQ(nvml().fn<Return(Device, unsigned int*, unsigned int*)>("nvmlDeviceGetMigMode")(
                  device, &current, &pending),
              kSuccess);
    EXPECT_EQ(current, 0U);
    EXPECT_EQ(pending, 0U);
    unsigned long long ecc = 9;
    const auto get_ecc =
        nvml().fn<Return(Device, int, int, unsigned long long*)>("nvmlDeviceGetTotalEccErrors");
    EXPECT_EQ(get_ecc(device, 1, 1, &ecc), kSuccess);
    EXPECT_EQ(ecc, 0U);
    EXPECT_EQ(get_ecc(device, 2, 0, &ecc), kInvalidArgument);
}

TEST_F(NvmlTest, TheEnergyCounterIsTheIdleDrawSinceInitAndOnlyGrows) {
    ASSERT_NO_FATAL_FAILURE(start());
    // As if `gpusim init` had run 100 s ago: 70 W idle for 100 s is 7,000,000 mJ.
    const std::filesystem::path config = root() / "gpusim" / "config.json";
    std::filesystem::last_write_time(
        config, std::filesystem::last_write_time(config) - std::chrono::seconds(100));
    const auto get_energy =
        nvml().fn<Return(Device, unsigned long long*)>("nvmlDeviceGetTotalEnergyConsumption");
    const Device device = nvml().device(0);
    unsigned long long first = 0;
    ASSERT_EQ(get_energy(device, &first), kSuccess);
    EXPECT_GE(first, 7'000'000U);
    EXPECT_LT(first, 7'000'000U + 70'000U * 5) << "within 5 s of the test's own time";
    unsigned long long second = 0;
    ASSERT_EQ(get_energy(device, &second), kSuccess);
    EXPECT_GE(second, first);
    EXPECT_EQ(get_energy(device, nullptr), kInvalidArgument);
}

TEST_F(NvmlTest, UnsupportedAndFailingMetricsFromAScenario) {
    ASSERT_NO_FATAL_FAILURE(start(R"(
gpus:
  - temperature_celsius: not_supported
    power_watts: null
    ecc_errors_uncorrected: 3
    failures: {ecc: no_permission, mig_mode: not_supported}
)"));
    const Device device = nvml().device(0);
    unsigned int value = 0;
    EXPECT_EQ(nvml().fn<Return(Device, int, unsigned int*)>("nvmlDeviceGetTemperature")(device, 0,
                                                                                        &value),
              kNotSupported);
    EXPECT_EQ(nvml().fn<GetUnsigned>("nvmlDeviceGetPowerUsage")(device, &value), kNotSupported);
    unsigned long long energy = 0;
    EXPECT_EQ(nvml().fn<Return(Device, unsigned long long*)>("nvmlDeviceGetTotalEnergyConsumption")(
                  device, &energy),
              kNotSupported)
        << "no power meter, no energy counter";
    unsigned long long ecc = 0;
    EXPECT_EQ(nvml().fn<Return(Device, int, int, unsigned long long*)>(
                  "nvmlDeviceGetTotalEccErrors")(device, 1, 0, &ecc),
              kNoPermission);
    unsigned int current = 0;
    unsigned int pending = 0;
    EXPECT_EQ(nvml().fn<Return(Device, unsigned int*, unsigned int*)>("nvmlDeviceGetMigMode")(
                  device, &current, &pending),
              kNotSupported);
    // A failure on one metric does not take the device down.
    EXPECT_EQ(nvml().fn<GetUnsigned>("nvmlDeviceGetPowerManagementLimit")(device, &value),
              kSuccess);
}

TEST_F(NvmlTest, ALostGpuAnswersIdentityButNotMetricsOrProcesses) {
    ASSERT_NO_FATAL_FAILURE(start("gpu_count: 2\ngpus: [{}, {failures: {lost: true}}]\n"));
    const Device lost = nvml().device(1);
    ASSERT_NE(lost, nullptr);
    char name[96] = {};
    EXPECT_EQ(nvml().fn<GetString>("nvmlDeviceGetName")(lost, name, sizeof name), kSuccess);
    PciInfo pci{};
    EXPECT_EQ(nvml().fn<Return(Device, PciInfo*)>("nvmlDeviceGetPciInfo_v3")(lost, &pci), kSuccess);
    Memory memory{};
    EXPECT_EQ(nvml().fn<Return(Device, Memory*)>("nvmlDeviceGetMemoryInfo")(lost, &memory),
              kGpuIsLost);
    unsigned int value = 0;
    EXPECT_EQ(
        nvml().fn<Return(Device, int, unsigned int*)>("nvmlDeviceGetTemperature")(lost, 0, &value),
        kGpuIsLost);
    unsigned int count = 0;
    EXPECT_EQ(nvml().fn<Return(Device, unsigned int*, ProcessV2*)>(
                  "nvmlDeviceGetComputeRunningProcesses_v3")(lost, &count, nullptr),
              kGpuIsLost);
    // The healthy GPU is unaffected.
    EXPECT_EQ(
        nvml().fn<Return(Device, Memory*)>("nvmlDeviceGetMemoryInfo")(nvml().device(0), &memory),
        kSuccess);
    // CUDA cannot use it either.
    const auto run =
        gpusim_test::gpusim({"run", "--root", root_arg(), "--gpu", "1", "--mem", "1G"});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_NE(run.err.find("fallen off the bus"), std::string::npos) << run.err;
}

TEST_F(NvmlTest, NoProcessesIsSuccessWithZeroEvenWithoutABuffer) {
    ASSERT_NO_FATAL_FAILURE(start());
    const Device device = nvml().device(0);
    for (const char* name :
         {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2",
          "nvmlDeviceGetGraphicsRunningProcesses_v3", "nvmlDeviceGetMPSComputeRunningProcesses_v3",
          "nvmlDeviceGetGraphicsRunningProcesses_v2",
          "nvmlDeviceGetMPSComputeRunningProcesses_v2"}) {
        unsigned int count = 5;
        EXPECT_EQ(
            nvml().fn<Return(Device, unsigned int*, ProcessV2*)>(name)(device, &count, nullptr),
            kSuccess)
            << name;
        EXPECT_EQ(count, 0U) << name;
    }
    unsigned int count = 5;
    EXPECT_EQ(nvml().fn<Return(Device, unsigned int*, ProcessV1*)>(
                  "nvmlDeviceGetComputeRunningProcesses")(device, &count, nullptr),
              kSuccess);
    EXPECT_EQ(count, 0U);
    EXPECT_EQ(nvml().fn<Return(Device, unsigned int*, ProcessV1*)>(
                  "nvmlDeviceGetComputeRunningProcesses")(device, nullptr, nullptr),
              kInvalidArgument);
}

TEST_F(NvmlTest, TheLegacyDriverLacksV3SymbolsButThePlainOnesWork) {
    ASSERT_NO_FATAL_FAILURE(start("driver: {legacy: true}\n", GPUSIM_LEGACY_NVML_LIBRARY));
    for (const char* absent :
         {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetGraphicsRunningProcesses_v3",
          "nvmlDeviceGetMPSComputeRunningProcesses_v3", "nvmlDeviceGetMemoryInfo_v2"}) {
        EXPECT_EQ(nvml().symbol(absent), nullptr) << absent;
    }
    for (const char* present :
         {"nvmlDeviceGetComputeRunningProcesses", "nvmlDeviceGetComputeRunningProcesses_v2",
          "nvmlDeviceGetMemoryInfo", "nvmlDeviceGetPciInfo_v3", "nvmlInit_v2"}) {
        EXPECT_NE(nvml().symbol(present), nullptr) << present;
    }
    char version[80] = {};
    ASSERT_EQ(nvml().fn<Return(char*, unsigned int)>("nvmlSystemGetDriverVersion")(version, 80),
              kSuccess);
    EXPECT_STREQ(version, "470.223.02");
    unsigned int count = 1;
    EXPECT_EQ(nvml().fn<Return(Device, unsigned int*, ProcessV1*)>(
                  "nvmlDeviceGetComputeRunningProcesses")(nvml().device(0), &count, nullptr),
              kSuccess);
}

TEST_F(NvmlTest, TheCurrentDriverExportsEveryEntryPoint) {
    ASSERT_NO_FATAL_FAILURE(make_host());
    for (const char* name : {"nvmlInit_v2",
                             "nvmlInit",
                             "nvmlInitWithFlags",
                             "nvmlShutdown",
                             "nvmlErrorString",
                             "nvmlSystemGetDriverVersion",
                             "nvmlSystemGetNVMLVersion",
                             "nvmlSystemGetCudaDriverVersion",
                             "nvmlSystemGetCudaDriverVersion_v2",
                             "nvmlDeviceGetCount_v2",
                             "nvmlDeviceGetCount",
                             "nvmlDeviceGetHandleByIndex_v2",
                             "nvmlDeviceGetHandleByIndex",
                             "nvmlDeviceGetName",
                             "nvmlDeviceGetUUID",
                             "nvmlDeviceGetPciInfo_v3",
                             "nvmlDeviceGetPciInfo_v2",
                             "nvmlDeviceGetPciInfo",
                             "nvmlDeviceGetMinorNumber",
                             "nvmlDeviceGetIndex",
                             "nvmlDeviceGetMemoryInfo",
                             "nvmlDeviceGetMemoryInfo_v2",
                             "nvmlDeviceGetUtilizationRates",
                             "nvmlDeviceGetTemperature",
                             "nvmlDeviceGetPowerUsage",
                             "nvmlDeviceGetPowerManagementLimit",
                             "nvmlDeviceGetEnforcedPowerLimit",
                             "nvmlDeviceGetTotalEnergyConsumption",
                             "nvmlDeviceGetTotalEccErrors",
                             "nvmlDeviceGetPersistenceMode",
                             "nvmlDeviceGetMigMode",
                             "nvmlDeviceGetComputeRunningProcesses",
                             "nvmlDeviceGetComputeRunningProcesses_v2",
                             "nvmlDeviceGetComputeRunningProcesses_v3",
                             "nvmlDeviceGetGraphicsRunningProcesses",
                             "nvmlDeviceGetGraphicsRunningProcesses_v2",
                             "nvmlDeviceGetGraphicsRunningProcesses_v3",
                             "nvmlDeviceGetMPSComputeRunningProcesses",
                             "nvmlDeviceGetMPSComputeRunningProcesses_v2",
                             "nvmlDeviceGetMPSComputeRunningProcesses_v3"}) {
        EXPECT_NE(nvml().symbol(name), nullptr) << name;
    }
    // Nothing of the simulator's own leaks out.
    EXPECT_EQ(nvml().symbol("_ZN6gpusim10parse_sizeESt17basic_string_viewIcSt11char_traitsIcEE"),
              nullptr);
}

}  // namespace

// Attaching DRM fdinfo usage to the DRM GPUs' process lists before merge.
#include "discovery/drm_usage_attach.hpp"

#include <gtest/gtest.h>

#include "discovery/merge.hpp"

namespace gpukill {
namespace {

constexpr std::uint64_t MiB = 1ULL << 20;

GpuReading drm_gpu(const std::string& bus_id, Vendor vendor) {
    GpuReading r;
    r.vendor = vendor;
    r.backend = "drm";
    r.pci_bus_id = bus_id;
    r.process_list_accounts_memory = false;
    r.processes = std::vector<DriverProcess>{};
    return r;
}

TEST(DrmUsageAttach, AClientBecomesAGraphicsProcessOfItsGpu) {
    std::vector<GpuReading> readings = {drm_gpu("0000:03:00.0", Vendor::amd),
                                        drm_gpu("0000:04:00.0", Vendor::intel)};
    attach_drm_usage(readings, {{.pid = 42,
                                 .pci_bus_id = "0000:04:00.0",
                                 .driver = "i915",
                                 .memory_bytes = 300 * MiB,
                                 .utilization_percent = 17}});
    EXPECT_TRUE(readings[0].processes->empty());
    ASSERT_EQ(readings[1].processes->size(), 1u);
    const DriverProcess& p = readings[1].processes->front();
    EXPECT_EQ(p.pid, 42);
    EXPECT_EQ(p.kind, DriverProcessKind::graphics);
    EXPECT_EQ(p.memory_bytes, 300 * MiB);
    EXPECT_EQ(p.utilization_percent, 17u);
}

TEST(DrmUsageAttach, AKfdComputeProcessKeepsItsKindAndTheLargerMemory) {
    GpuReading amd = drm_gpu("0000:03:00.0", Vendor::amd);
    amd.processes->push_back({.pid = 7, .memory_bytes = 2048 * MiB});
    amd.processes->push_back({.pid = 9, .memory_bytes = 100 * MiB});
    std::vector<GpuReading> readings = {amd};
    attach_drm_usage(readings,
                     {{.pid = 7, .pci_bus_id = "0000:03:00.0", .memory_bytes = 1024 * MiB},
                      {.pid = 9,
                       .pci_bus_id = "0000:03:00.0",
                       .memory_bytes = 300 * MiB,
                       .utilization_percent = 90}});
    ASSERT_EQ(readings[0].processes->size(), 2u);
    const auto& listed = *readings[0].processes;
    EXPECT_EQ(listed[0].kind, DriverProcessKind::compute);
    EXPECT_EQ(listed[0].memory_bytes, 2048 * MiB);  // never 3072: the same VRAM, twice seen
    EXPECT_EQ(listed[1].memory_bytes, 300 * MiB);
    EXPECT_EQ(listed[1].utilization_percent, 90u);
    EXPECT_EQ(listed[1].kind, DriverProcessKind::compute);
}

TEST(DrmUsageAttach, NvidiaGpusAndUnknownBusIdsAreLeftAlone) {
    GpuReading nvidia;
    nvidia.backend = "nvml";
    nvidia.pci_bus_id = "0000:18:00.0";
    nvidia.processes = std::vector<DriverProcess>{};
    std::vector<GpuReading> readings = {nvidia, drm_gpu("0000:03:00.0", Vendor::amd)};
    attach_drm_usage(readings, {{.pid = 5, .pci_bus_id = "0000:18:00.0", .memory_bytes = 1},
                                {.pid = 6, .pci_bus_id = "0000:99:00.0", .memory_bytes = 1}});
    EXPECT_TRUE(readings[0].processes->empty());
    EXPECT_TRUE(readings[1].processes->empty());
}

TEST(DrmUsageAttach, AnUnreadableComputeListStillGetsTheDrmClients) {
    GpuReading amd = drm_gpu("0000:03:00.0", Vendor::amd);
    amd.processes.reset();
    amd.problems.push_back("compute processes: cannot read /sys/class/kfd/kfd/proc");
    std::vector<GpuReading> readings = {amd};
    attach_drm_usage(readings, {{.pid = 11, .pci_bus_id = "0000:03:00.0"}});
    ASSERT_TRUE(readings[0].processes.has_value());
    EXPECT_EQ(readings[0].processes->size(), 1u);
    EXPECT_EQ(readings[0].problems.size(), 1u);
}

TEST(DrmUsageAttach, MergeCarriesUtilisationIntoTheProcessEntry) {
    MergeInputs in;
    in.readings = {drm_gpu("0000:03:00.0", Vendor::amd)};
    attach_drm_usage(in.readings, {{.pid = 42,
                                    .pci_bus_id = "0000:03:00.0",
                                    .memory_bytes = 64 * MiB,
                                    .utilization_percent = 33}});
    DeviceHolder holder{.pid = 42};
    holder.nodes.push_back({.kind = DeviceNodeKind::dri_render,
                            .relative_path = "dri/renderD128",
                            .dri_minor = 128,
                            .pci_bus_id = "0000:03:00.0"});
    in.holders = {holder};
    Snapshot s = merge_snapshot(std::move(in));
    ASSERT_EQ(s.processes.size(), 1u);
    ASSERT_EQ(s.processes[0].gpus.size(), 1u);
    const ProcessGpuUse& use = s.processes[0].gpus[0];
    EXPECT_EQ(use.utilization_percent, 33u);
    EXPECT_EQ(use.memory_bytes, 64 * MiB);
    EXPECT_EQ(use.driver_kind, DriverProcessKind::graphics);
    EXPECT_TRUE(use.seen_by.driver);
    EXPECT_TRUE(use.seen_by.device_file);
}

}  // namespace
}  // namespace gpukill

#include <gtest/gtest.h>

#include "backends/drm/kfd_processes.hpp"
#include "backends/drm/kfd_topology.hpp"
#include "drm_fixture_support.hpp"

namespace gpukill::drm {
namespace {

using testing::fixture_roots;
using testing::SysfsCopy;

TEST(KfdTopology, PropertiesLocateTheNodeOnPci) {
    EXPECT_EQ(kfd_node_pci_bus_id("simd_count 1216\nlocation_id 768\ndomain 0\n"), "0000:03:00.0");
    // bus 0xc3, device 0x1f, function 7
    EXPECT_EQ(kfd_node_pci_bus_id("location_id 50175\ndomain 2\n"), "0002:c3:1f.7");
    // Kernels before 5.10 print no domain: domain 0.
    EXPECT_EQ(kfd_node_pci_bus_id("vendor_id 4098\nlocation_id 33536\n"), "0000:83:00.0");
    EXPECT_FALSE(kfd_node_pci_bus_id("cpu_cores_count 96\nsimd_count 0\n"));
    EXPECT_FALSE(kfd_node_pci_bus_id("location_id x\n"));
    EXPECT_FALSE(kfd_node_pci_bus_id("location_id 70000\n"));
    // "domain" must be the whole name, not a prefix of another property.
    EXPECT_EQ(kfd_node_pci_bus_id("location_id 768\ndomain_x 5\n"), "0000:03:00.0");
}

TEST(KfdTopology, GpuIdsMapToPciAndCpuNodesAreLeftOut) {
    auto ids = read_kfd_gpu_ids(fixture_roots("amd_mi300x"));
    ASSERT_TRUE(ids) << ids.error().what;
    ASSERT_EQ(ids->size(), 2u);
    EXPECT_EQ(ids->at(53894), "0000:03:00.0");
    EXPECT_EQ(ids->at(8421), "0000:83:00.0");
}

TEST(KfdTopology, AHostWithoutKfdHasNoGpuIds) {
    auto ids = read_kfd_gpu_ids(fixture_roots("intel_xe"));
    ASSERT_TRUE(ids) << ids.error().what;
    EXPECT_TRUE(ids->empty());
}

TEST(KfdProcesses, VramFileNamesCarryTheGpuId) {
    EXPECT_EQ(kfd_vram_file_gpu_id("vram_53894"), 53894u);
    EXPECT_FALSE(kfd_vram_file_gpu_id("sdma_53894"));
    EXPECT_FALSE(kfd_vram_file_gpu_id("vram_"));
    EXPECT_FALSE(kfd_vram_file_gpu_id("vram_0x10"));
    EXPECT_FALSE(kfd_vram_file_gpu_id("stats_53894"));
}

TEST(KfdProcesses, EachProcessAppearsOnlyOnTheGpusItUses) {
    auto usage = read_kfd_process_usage(fixture_roots("amd_mi300x"));
    ASSERT_TRUE(usage) << usage.error().what;
    ASSERT_EQ(usage->size(), 4u);
    auto ids = read_kfd_gpu_ids(fixture_roots("amd_mi300x"));
    ASSERT_TRUE(ids);
    auto by_gpu = kfd_processes_by_gpu(*usage, *ids);

    const auto& first = by_gpu["0000:03:00.0"];
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(first[0].pid, 4242);
    EXPECT_EQ(first[0].memory_bytes, 4294967296u);
    EXPECT_EQ(first[0].kind, DriverProcessKind::compute);

    const auto& second = by_gpu["0000:83:00.0"];
    ASSERT_EQ(second.size(), 2u);
    EXPECT_EQ(second[0].pid, 4243);  // VRAM there, no queue yet
    EXPECT_EQ(second[0].memory_bytes, 1073741824u);
    EXPECT_EQ(second[1].pid, 4244);  // a queue there, no VRAM of its own
    EXPECT_EQ(second[1].memory_bytes, 0u);
    // 4245 opened /dev/kfd and uses neither GPU: on no GPU's list.
}

TEST(KfdProcesses, PartitionsOfOneGpuAddUp) {
    std::map<std::uint32_t, std::string> ids = {{100, "0000:03:00.0"}, {101, "0000:03:00.0"}};
    std::vector<KfdProcessUsage> usage = {
        {.pid = 7, .vram_bytes_by_gpu_id = {{100, 1000}, {101, 24}}, .queues_by_gpu_id = {}}};
    auto by_gpu = kfd_processes_by_gpu(usage, ids);
    ASSERT_EQ(by_gpu["0000:03:00.0"].size(), 1u);
    EXPECT_EQ(by_gpu["0000:03:00.0"][0].memory_bytes, 1024u);
}

TEST(KfdProcesses, AnUnreadableVramFileMakesTheListUnknown) {
    SysfsCopy sys("amd_mi300x");
    sys.make_unreadable("class/kfd/kfd/proc/4243/vram_8421");
    auto usage = read_kfd_process_usage(sys.roots());
    ASSERT_FALSE(usage);
    EXPECT_NE(usage.error().what.find("vram_8421"), std::string::npos);
}

}  // namespace
}  // namespace gpukill::drm

// Per-process usage from DRM fdinfo samples: clients counted once, utilisation from two
// samples (engine ns against wall time, xe cycles against the GPU clock, old amdgpu
// percentages as printed), counters that go backwards, and memory per distinct client.
#include "discovery/drm_client_usage.hpp"

#include <gtest/gtest.h>

namespace gpukill {
namespace {

constexpr std::int64_t kSecond = 1'000'000'000;
constexpr std::uint64_t MiB = 1ULL << 20;
const std::string kBus = "0000:03:00.0";

DrmFdinfo amdgpu_client(std::uint64_t client_id, std::uint64_t gfx_ns, std::uint64_t vram) {
    DrmFdinfo info;
    info.driver = "amdgpu";
    info.pdev = kBus;
    info.client_id = client_id;
    info.engines.push_back({.name = "gfx", .busy_ns = gfx_ns});
    info.regions.push_back({.name = "vram", .resident_bytes = vram});
    info.regions.push_back({.name = "gtt", .resident_bytes = 64 * MiB});
    return info;
}

DrmClientSample sample(pid_t pid, int fd, std::int64_t at_ns, DrmFdinfo client) {
    return DrmClientSample{
        .pid = pid, .fd = fd, .monotonic_ns = at_ns, .client = std::move(client)};
}

TEST(DrmClientUsage, AFirstSampleKnowsMemoryButNotUtilisation) {
    DrmUsageTracker tracker;
    auto usage = tracker.update({sample(100, 5, 0, amdgpu_client(1, 5 * kSecond, 512 * MiB))});
    ASSERT_EQ(usage.size(), 1u);
    EXPECT_EQ(usage[0].pid, 100);
    EXPECT_EQ(usage[0].pci_bus_id, kBus);
    EXPECT_EQ(usage[0].driver, "amdgpu");
    EXPECT_EQ(usage[0].memory_bytes, 512 * MiB);  // vram only: gtt is host memory
    EXPECT_EQ(usage[0].utilization_percent, std::nullopt);
}

TEST(DrmClientUsage, EngineTimeOverWallTimeBetweenTwoSamples) {
    DrmUsageTracker tracker;
    tracker.update({sample(100, 5, 0, amdgpu_client(1, 10 * kSecond, 0))});
    auto usage = tracker.update({sample(100, 5, 2 * kSecond, amdgpu_client(1, 11 * kSecond, 0))});
    ASSERT_EQ(usage.size(), 1u);
    EXPECT_EQ(usage[0].utilization_percent, 50u);  // 1 s busy in 2 s
}

TEST(DrmClientUsage, TheBusiestEngineGivesTheFigureAndCapacityDividesIt) {
    auto client = [](std::uint64_t render_ns, std::uint64_t video_ns) {
        DrmFdinfo info;
        info.driver = "i915";
        info.pdev = kBus;
        info.client_id = 12;
        info.engines.push_back({.name = "render", .busy_ns = render_ns});
        info.engines.push_back({.name = "video", .busy_ns = video_ns, .capacity = 2});
        return info;
    };
    DrmUsageTracker tracker;
    tracker.update({sample(7, 3, 0, client(0, 0))});
    // render 20% of one engine; video 1.6 s over 1 s on a group of two: 80%.
    auto usage = tracker.update({sample(7, 3, kSecond, client(kSecond / 5, 1'600'000'000))});
    EXPECT_EQ(usage[0].utilization_percent, 80u);
}

TEST(DrmClientUsage, XeCyclesAreMeasuredAgainstTheGpuClock) {
    auto client = [](std::uint64_t ccs_cycles, std::uint64_t clock) {
        DrmFdinfo info;
        info.driver = "xe";
        info.pdev = kBus;
        info.client_id = 4;
        info.engines.push_back({.name = "rcs", .cycles = ccs_cycles / 10, .total_cycles = clock});
        info.engines.push_back(
            {.name = "ccs", .cycles = ccs_cycles, .total_cycles = clock, .capacity = 4});
        return info;
    };
    DrmUsageTracker tracker;
    tracker.update({sample(9, 4, 0, client(1000, 10'000))});
    // The wall clock says 5 s passed, but utilisation comes from the GPU's cycles only:
    // ccs 2000 busy cycles over 1000 clock cycles on 4 engines = 50%.
    auto usage = tracker.update({sample(9, 4, 5 * kSecond, client(3000, 11'000))});
    EXPECT_EQ(usage[0].utilization_percent, 50u);
}

TEST(DrmClientUsage, OldAmdgpuPercentagesNeedNoSecondSample) {
    DrmFdinfo old;
    old.driver = "amdgpu";
    old.legacy_amdgpu = true;
    old.pdev = kBus;
    old.client_id = 32770;
    old.engines.push_back({.name = "gfx0", .busy_percent = 45.12});
    old.engines.push_back({.name = "compute1", .busy_percent = 61.25});
    old.regions.push_back({.name = "vram", .legacy_bytes = 1024 * MiB});
    DrmUsageTracker tracker;
    auto usage = tracker.update({sample(50, 8, 0, old)});
    ASSERT_EQ(usage.size(), 1u);
    EXPECT_EQ(usage[0].utilization_percent, 61u);  // the busiest ring
    EXPECT_EQ(usage[0].memory_bytes, 1024 * MiB);
}

TEST(DrmClientUsage, DupedFdsOfOneClientCountOnce) {
    DrmUsageTracker tracker;
    tracker.update({sample(100, 5, 0, amdgpu_client(1, 0, 512 * MiB)),
                    sample(100, 9, 0, amdgpu_client(1, 0, 512 * MiB))});
    auto usage =
        tracker.update({sample(100, 5, kSecond, amdgpu_client(1, kSecond / 4, 512 * MiB)),
                        sample(100, 9, kSecond, amdgpu_client(1, kSecond / 4, 512 * MiB))});
    ASSERT_EQ(usage.size(), 1u);
    EXPECT_EQ(usage[0].memory_bytes, 512 * MiB);
    EXPECT_EQ(usage[0].utilization_percent, 25u);
}

TEST(DrmClientUsage, SeparateClientsOfOneProcessAddUp) {
    DrmUsageTracker tracker;
    tracker.update({sample(100, 5, 0, amdgpu_client(1, 0, 512 * MiB)),
                    sample(100, 6, 0, amdgpu_client(2, 0, 256 * MiB))});
    auto usage =
        tracker.update({sample(100, 5, kSecond, amdgpu_client(1, kSecond / 4, 512 * MiB)),
                        sample(100, 6, kSecond, amdgpu_client(2, kSecond / 2, 256 * MiB))});
    ASSERT_EQ(usage.size(), 1u);
    EXPECT_EQ(usage[0].memory_bytes, 768 * MiB);
    EXPECT_EQ(usage[0].utilization_percent, 75u);
}

TEST(DrmClientUsage, AClientInheritedOverForkCountsInEachHolder) {
    DrmUsageTracker tracker;
    auto usage = tracker.update({sample(100, 5, 0, amdgpu_client(1, 0, 512 * MiB)),
                                 sample(101, 5, 0, amdgpu_client(1, 0, 512 * MiB))});
    ASSERT_EQ(usage.size(), 2u);
    EXPECT_EQ(usage[0].pid, 100);
    EXPECT_EQ(usage[1].pid, 101);
    EXPECT_EQ(usage[1].memory_bytes, 512 * MiB);
}

TEST(DrmClientUsage, ACounterThatGoesBackwardsKeepsItsLargerValue) {
    DrmUsageTracker tracker;
    tracker.update({sample(100, 5, 0, amdgpu_client(1, 10 * kSecond, 0))});
    auto backwards = tracker.update({sample(100, 5, kSecond, amdgpu_client(1, 9 * kSecond, 0))});
    EXPECT_EQ(backwards[0].utilization_percent, 0u);
    // The next reading counts from 10 s (the larger value), not from 9 s.
    auto caught_up = tracker.update(
        {sample(100, 5, 2 * kSecond, amdgpu_client(1, 10 * kSecond + 400'000'000, 0))});
    EXPECT_EQ(caught_up[0].utilization_percent, 40u);
}

TEST(DrmClientUsage, UtilisationIsCappedAtOneHundred) {
    DrmUsageTracker tracker;
    tracker.update({sample(100, 5, 0, amdgpu_client(1, 0, 0))});
    auto usage = tracker.update({sample(100, 5, kSecond, amdgpu_client(1, 2 * kSecond, 0))});
    EXPECT_EQ(usage[0].utilization_percent, 100u);
}

TEST(DrmClientUsage, AClientGoneFromASampleIsForgotten) {
    DrmUsageTracker tracker;
    tracker.update({sample(100, 5, 0, amdgpu_client(1, 0, 0))});
    tracker.update({});
    auto usage = tracker.update({sample(100, 5, 2 * kSecond, amdgpu_client(1, kSecond, 0))});
    EXPECT_EQ(usage[0].utilization_percent, std::nullopt);
}

TEST(DrmClientUsage, TheNodesBusIdStandsInForAMissingPdev) {
    DrmFdinfo no_pdev = amdgpu_client(1, 0, 128 * MiB);
    no_pdev.pdev.reset();
    DrmClientSample with_node = sample(100, 5, 0, no_pdev);
    with_node.node_pci_bus_id = "0000:0a:00.0";
    DrmClientSample nowhere = sample(200, 5, 0, no_pdev);
    DrmUsageTracker tracker;
    auto usage = tracker.update({with_node, nowhere});
    ASSERT_EQ(usage.size(), 1u);
    EXPECT_EQ(usage[0].pci_bus_id, "0000:0a:00.0");
    EXPECT_EQ(usage[0].memory_bytes, 128 * MiB);
}

TEST(DrmClientUsage, WithoutClientIdsFdsAreCombinedByMaximum) {
    DrmFdinfo anonymous = amdgpu_client(0, 0, 300 * MiB);
    anonymous.client_id.reset();
    DrmFdinfo bigger = anonymous;
    bigger.regions[0].resident_bytes = 400 * MiB;
    DrmUsageTracker tracker;
    auto usage = tracker.update({sample(100, 5, 0, anonymous), sample(100, 6, 0, bigger),
                                 sample(100, 7, 0, amdgpu_client(3, 0, 100 * MiB))});
    ASSERT_EQ(usage.size(), 1u);
    EXPECT_EQ(usage[0].memory_bytes, 500 * MiB);  // 100 identified + max(300, 400)
}

TEST(DrmClientUsage, NoMemoryKeysMeansUnknownMemory) {
    DrmFdinfo info;
    info.driver = "v3d";
    info.pdev = kBus;
    info.client_id = 2;
    DrmUsageTracker tracker;
    auto usage = tracker.update({sample(100, 5, 0, info)});
    ASSERT_EQ(usage.size(), 1u);
    EXPECT_EQ(usage[0].memory_bytes, std::nullopt);
    EXPECT_EQ(usage[0].utilization_percent, std::nullopt);
}

TEST(DrmClientUsage, OneProcessOnTwoGpusIsTwoEntries) {
    DrmFdinfo other = amdgpu_client(1, 0, 64 * MiB);
    other.pdev = "0000:83:00.0";
    DrmUsageTracker tracker;
    auto usage = tracker.update(
        {sample(100, 5, 0, amdgpu_client(1, 0, 32 * MiB)), sample(100, 6, 0, other)});
    ASSERT_EQ(usage.size(), 2u);
    EXPECT_EQ(usage[0].pci_bus_id, kBus);
    EXPECT_EQ(usage[1].pci_bus_id, "0000:83:00.0");
    EXPECT_EQ(usage[1].memory_bytes, 64 * MiB);
}

}  // namespace
}  // namespace gpukill

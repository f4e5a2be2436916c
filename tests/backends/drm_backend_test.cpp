#include "backends/drm/drm_backend.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "backends/registry.hpp"
#include "discovery/discover.hpp"
#include "discovery/gpu_selector.hpp"
#include "drm_fixture_support.hpp"

namespace gpukill::drm {
namespace {

using namespace std::chrono_literals;
using testing::fixture_roots;
using testing::SysfsCopy;

TEST(DrmBackend, WithoutClassDrmItIsNotLoadedAndSaysWhy) {
    SysfsCopy empty("");
    DrmBackend backend(empty.roots());
    EXPECT_EQ(backend.status().name, "drm");
    EXPECT_FALSE(backend.status().loaded);
    EXPECT_NE(backend.status().detail.find(empty.sysfs() + "/class/drm"), std::string::npos);
    EXPECT_TRUE(backend.status().advice.has_value());
    EXPECT_TRUE(backend.read_gpus().empty());
}

TEST(DrmBackend, LoadedWithNoGpusWhenNoCardIsOne) {
    DrmBackend backend(fixture_roots("amd_cpu_chipset_only"));
    EXPECT_TRUE(backend.status().loaded);
    EXPECT_TRUE(backend.read_gpus().empty());
    EXPECT_TRUE(backend.status().detail.starts_with("no DRM GPUs")) << backend.status().detail;
    EXPECT_NE(backend.status().detail.find("card1 not listed"), std::string::npos);
}

TEST(DrmBackend, Mi300xReadingsCarryIdentityMetricsAndComputeProcesses) {
    DrmBackend backend(fixture_roots("amd_mi300x"));
    ASSERT_TRUE(backend.status().loaded);
    auto gpus = backend.read_gpus();
    EXPECT_EQ(backend.status().detail, "2 GPUs (amdgpu)");
    ASSERT_EQ(gpus.size(), 2u);
    const GpuReading& g = gpus[0];
    EXPECT_TRUE(g.problems.empty()) << g.problems.front();
    EXPECT_EQ(g.vendor, Vendor::amd);
    EXPECT_EQ(g.backend, "drm");
    EXPECT_EQ(g.backend_index, 0u);
    EXPECT_EQ(g.name, "AMD Instinct MI300X OAM");
    EXPECT_EQ(g.uuid, "a5b1c0d2e3f40718");
    EXPECT_EQ(g.pci_bus_id, "0000:03:00.0");
    EXPECT_EQ(g.driver, "amdgpu");
    EXPECT_EQ(g.driver_version, "6.10.5");
    EXPECT_EQ(g.drm_card, "card0");
    EXPECT_EQ(g.drm_render_node, "renderD128");
    EXPECT_FALSE(g.nvidia_minor);
    EXPECT_EQ(g.memory_total_bytes, 206141652992u);
    EXPECT_EQ(g.memory_used_bytes, 77309411328u);
    EXPECT_EQ(g.gtt_total_bytes, 270038433792u);
    EXPECT_EQ(g.gtt_used_bytes, 16777216u);
    EXPECT_EQ(g.utilization_percent, 87u);
    EXPECT_EQ(g.temperature_celsius, 73);
    EXPECT_DOUBLE_EQ(*g.power_watts, 152.0);
    EXPECT_DOUBLE_EQ(*g.power_limit_watts, 750.0);
    EXPECT_FALSE(g.process_list_accounts_memory);
    ASSERT_TRUE(g.processes);
    ASSERT_EQ(g.processes->size(), 1u);
    EXPECT_EQ((*g.processes)[0].pid, 4242);
    EXPECT_EQ((*g.processes)[0].memory_bytes, 4294967296u);

    ASSERT_TRUE(gpus[1].processes);
    ASSERT_EQ(gpus[1].processes->size(), 2u);
    EXPECT_EQ((*gpus[1].processes)[0].pid, 4243);
    EXPECT_EQ((*gpus[1].processes)[1].pid, 4244);
}

TEST(DrmBackend, Mi250WithoutHwmonOrKfdHasUnknownSensorsAndNoProcesses) {
    DrmBackend backend(fixture_roots("amd_mi250_no_hwmon"));
    auto gpus = backend.read_gpus();
    ASSERT_EQ(gpus.size(), 1u);
    const GpuReading& g = gpus[0];
    EXPECT_TRUE(g.problems.empty()) << g.problems.front();
    EXPECT_EQ(g.name, "AMD Instinct MI250X");
    EXPECT_EQ(g.utilization_percent, 12u);
    EXPECT_FALSE(g.temperature_celsius);
    EXPECT_FALSE(g.power_watts);
    EXPECT_FALSE(g.power_limit_watts);
    EXPECT_FALSE(g.driver_version);  // an in-tree module has no version file
    ASSERT_TRUE(g.processes);        // known: nobody
    EXPECT_TRUE(g.processes->empty());
}

TEST(DrmBackend, OnlyTheAmdGpuOfAHostWithNvidiaDriverAndBmcVga) {
    DrmBackend backend(fixture_roots("mixed_with_nvidia_drm"));
    auto gpus = backend.read_gpus();
    ASSERT_EQ(gpus.size(), 1u);
    const GpuReading& g = gpus[0];
    EXPECT_EQ(g.pci_bus_id, "0000:c3:00.0");
    EXPECT_EQ(g.backend_index, 2u);
    EXPECT_EQ(g.name, "AMD GPU 0x744c");  // product_name is empty on this card
    EXPECT_FALSE(g.uuid);
    EXPECT_EQ(g.temperature_celsius, 41);
    ASSERT_TRUE(g.processes);
    EXPECT_TRUE(g.processes->empty());
    EXPECT_NE(backend.status().detail.find("card1 not listed: NVIDIA driver"), std::string::npos);
}

TEST(DrmBackend, UnreadableKfdMakesTheProcessListUnknownNotEmpty) {
    SysfsCopy sys("amd_mi300x");
    sys.make_unreadable("class/kfd/kfd/proc/4242/vram_53894");
    DrmBackend backend(sys.roots());
    auto gpus = backend.read_gpus();
    ASSERT_EQ(gpus.size(), 2u);
    EXPECT_FALSE(gpus[0].processes);
    ASSERT_EQ(gpus[0].problems.size(), 1u);
    EXPECT_TRUE(gpus[0].problems[0].starts_with("compute processes: ")) << gpus[0].problems[0];
    EXPECT_EQ(gpus[0].memory_used_bytes, 77309411328u);  // the rest is still read
}

// Intel reports energy, not power: a clock and a sleep the test controls, and a counter
// the test advances while the backend "sleeps".
struct FakeTime {
    std::chrono::steady_clock::time_point now = std::chrono::steady_clock::time_point{} + 1000s;
    std::vector<std::chrono::milliseconds> sleeps;
};

constexpr const char* kXeEnergy = "class/drm/card0/device/hwmon/hwmon3/energy1_input";

TEST(DrmBackend, IntelPowerComesFromEnergyAcrossReads) {
    SysfsCopy sys("intel_xe");
    FakeTime time;
    DrmBackendOptions options{.roots = sys.roots()};
    options.now = [&] { return time.now; };
    options.sleep = [&](std::chrono::milliseconds wait) {
        time.sleeps.push_back(wait);
        time.now += wait;
        sys.write(kXeEnergy, "1019000000\n");  // +19 J in 100 ms: 190 W
    };
    DrmBackend backend(options);

    auto first = backend.read_gpus();
    ASSERT_EQ(first.size(), 2u);
    ASSERT_EQ(time.sleeps.size(), 1u);  // one wait, on the first read only
    EXPECT_EQ(time.sleeps[0], 100ms);
    EXPECT_EQ(first[0].drm_card, "card0");
    EXPECT_EQ(first[0].vendor, Vendor::intel);
    EXPECT_EQ(first[0].name, "Intel GPU 0xe20b");
    EXPECT_NEAR(*first[0].power_watts, 190.0, 1e-6);
    // The counter itself, as read after the wait: what energy metrics export.
    EXPECT_NEAR(*first[0].energy_joules, 1019.0, 1e-6);
    EXPECT_DOUBLE_EQ(*first[0].power_limit_watts, 190.0);
    EXPECT_FALSE(first[0].utilization_percent);  // xe has no busy percentage in sysfs
    ASSERT_TRUE(first[0].processes);
    EXPECT_TRUE(first[0].processes->empty());
    EXPECT_TRUE(first[0].problems.empty()) << first[0].problems.front();
    // The integrated i915 GPU has no hwmon at all.
    EXPECT_EQ(first[1].driver, "i915");
    EXPECT_FALSE(first[1].power_watts);

    // Watch mode: the next read uses the previous one's counter, with no wait.
    time.now += 2s;
    sys.write(kXeEnergy, "1419000000\n");  // +400 J in 2 s
    auto second = backend.read_gpus();
    EXPECT_EQ(time.sleeps.size(), 1u);
    EXPECT_NEAR(*second[0].power_watts, 200.0, 1e-6);
    EXPECT_NEAR(*second[0].energy_joules, 1419.0, 1e-6);

    // A counter that went backwards (driver reload, wrap) gives no power this time ...
    time.now += 1s;
    sys.write(kXeEnergy, "5000000\n");
    auto third = backend.read_gpus();
    EXPECT_FALSE(third[0].power_watts);
    EXPECT_NEAR(*third[0].energy_joules, 5.0, 1e-6);  // the counter as it is, gone back or not
    EXPECT_TRUE(third[0].problems.empty());

    // ... and the next read measures from the new value.
    time.now += 1s;
    sys.write(kXeEnergy, "155000000\n");
    auto fourth = backend.read_gpus();
    EXPECT_NEAR(*fourth[0].power_watts, 150.0, 1e-6);
    EXPECT_EQ(time.sleeps.size(), 1u);
}

TEST(DrmBackend, TheRegistryOpensDrmForAmdAndForEveryVendor) {
    BackendConfig config{.roots = fixture_roots("mixed_with_nvidia_drm"), .nvml_library = {}};
    auto amd = open_backends(config, Vendor::amd);
    ASSERT_EQ(amd.size(), 1u);
    EXPECT_EQ(amd[0]->status().name, "drm");
    EXPECT_EQ(amd[0]->vendor(), Vendor::other);

    Snapshot snapshot = discover_gpus(amd);
    ASSERT_EQ(snapshot.gpus.size(), 1u);
    EXPECT_EQ(restrict_to_vendor(snapshot, Vendor::amd).gpus.size(), 1u);
    EXPECT_TRUE(restrict_to_vendor(snapshot, Vendor::intel).gpus.empty());

    auto intel = open_backends(config, Vendor::intel);
    EXPECT_TRUE(std::any_of(intel.begin(), intel.end(),
                            [](const auto& b) { return b->status().name == "drm"; }));
}

}  // namespace
}  // namespace gpukill::drm

#include "backends/drm/drm_metrics.hpp"

#include <gtest/gtest.h>

#include "drm_fixture_support.hpp"

namespace gpukill::drm {
namespace {

using testing::fixture_sysfs;
using testing::SysfsCopy;

TEST(DrmMetrics, AmdgpuReportsBusyVramGttAndHwmon) {
    auto m =
        read_device_metrics(fixture_sysfs("mixed_with_nvidia_drm") + "/class/drm/card2/device");
    EXPECT_TRUE(m.problems.empty()) << m.problems.front();
    EXPECT_FALSE(m.runtime_suspended);
    EXPECT_EQ(m.busy_percent, 3u);
    EXPECT_EQ(m.vram_total_bytes, 25753026560u);
    EXPECT_EQ(m.vram_used_bytes, 1480589312u);
    EXPECT_EQ(m.gtt_total_bytes, 33384955904u);
    EXPECT_EQ(m.gtt_used_bytes, 78000128u);
    EXPECT_EQ(m.hwmon.temperature_celsius, 41);    // the "edge" sensor, not junction or memory
    EXPECT_DOUBLE_EQ(*m.hwmon.power_watts, 28.0);  // power1_average
    EXPECT_DOUBLE_EQ(*m.hwmon.power_limit_watts, 339.0);
    EXPECT_FALSE(m.hwmon.energy_path);  // this card has no energy counter
}

TEST(DrmMetrics, AnEnergyCounterBesidePowerIsReadToo) {
    SysfsCopy sys("mixed_with_nvidia_drm");
    const std::string device = "class/drm/card2/device";
    sys.write(device + "/hwmon/hwmon4/energy1_input", "123456789\n");
    auto m = read_device_metrics(sys.sysfs() + "/" + device);
    EXPECT_TRUE(m.problems.empty()) << m.problems.front();
    EXPECT_DOUBLE_EQ(*m.hwmon.power_watts, 28.0);  // power still comes from power1_average
    EXPECT_EQ(m.hwmon.energy_microjoules, 123456789u);
}

TEST(DrmMetrics, Mi300xWithoutAnEdgeSensorShowsItsFirstTemperatureAndPowerInput) {
    auto m = read_device_metrics(fixture_sysfs("amd_mi300x") + "/class/drm/card0/device");
    EXPECT_TRUE(m.problems.empty()) << m.problems.front();
    EXPECT_EQ(m.hwmon.temperature_celsius, 73);  // temp2 "junction": the lowest channel
    EXPECT_DOUBLE_EQ(*m.hwmon.power_watts, 152.0);
    EXPECT_DOUBLE_EQ(*m.hwmon.power_limit_watts, 750.0);
}

TEST(DrmMetrics, WithoutHwmonSensorsAreUnknownAndNotProblems) {
    auto m = read_device_metrics(fixture_sysfs("amd_mi250_no_hwmon") + "/class/drm/card0/device");
    EXPECT_TRUE(m.problems.empty()) << m.problems.front();
    EXPECT_EQ(m.busy_percent, 12u);
    EXPECT_EQ(m.vram_used_bytes, 11811160064u);
    EXPECT_FALSE(m.hwmon.temperature_celsius);
    EXPECT_FALSE(m.hwmon.power_watts);
    EXPECT_FALSE(m.hwmon.power_limit_watts);
    EXPECT_FALSE(m.hwmon.energy_microjoules);
}

TEST(DrmMetrics, IntelGivesEnergyAndItsLimitButNoPowerOrAmdgpuFiles) {
    auto m = read_device_metrics(fixture_sysfs("intel_xe") + "/class/drm/card0/device");
    EXPECT_TRUE(m.problems.empty()) << m.problems.front();
    EXPECT_FALSE(m.busy_percent);
    EXPECT_FALSE(m.vram_total_bytes);
    EXPECT_FALSE(m.hwmon.power_watts);
    EXPECT_DOUBLE_EQ(*m.hwmon.power_limit_watts, 190.0);  // power1_max
    EXPECT_EQ(m.hwmon.energy_microjoules, 1000000000u);
    ASSERT_TRUE(m.hwmon.energy_path);
    EXPECT_TRUE(m.hwmon.energy_path->ends_with("/hwmon3/energy1_input"));
}

TEST(DrmMetrics, AFileThatExistsButCannotBeReadIsAProblemAndOnlyThatValueIsLost) {
    SysfsCopy sys("mixed_with_nvidia_drm");
    const std::string device = "class/drm/card2/device";
    sys.make_unreadable(device + "/hwmon/hwmon4/temp1_input");
    sys.write(device + "/gpu_busy_percent", "busy\n");
    auto m = read_device_metrics(sys.sysfs() + "/" + device);
    ASSERT_EQ(m.problems.size(), 2u);
    EXPECT_TRUE(m.problems[0].starts_with("utilization: unexpected value")) << m.problems[0];
    EXPECT_TRUE(m.problems[1].starts_with("temperature: cannot read")) << m.problems[1];
    EXPECT_FALSE(m.busy_percent);
    EXPECT_FALSE(m.hwmon.temperature_celsius);
    EXPECT_EQ(m.vram_used_bytes, 1480589312u);
    EXPECT_DOUBLE_EQ(*m.hwmon.power_watts, 28.0);
}

TEST(DrmMetrics, ARuntimeSuspendedGpuIsNotWokenForSensors) {
    SysfsCopy sys("mixed_with_nvidia_drm");
    const std::string device = "class/drm/card2/device";
    sys.write(device + "/power/runtime_status", "suspended\n");
    auto m = read_device_metrics(sys.sysfs() + "/" + device);
    EXPECT_TRUE(m.runtime_suspended);
    EXPECT_FALSE(m.busy_percent);
    EXPECT_FALSE(m.hwmon.temperature_celsius);
    EXPECT_EQ(m.vram_used_bytes, 1480589312u);  // bookkeeping, read without waking it
}

TEST(DrmMetrics, TemperaturePrefersEdgeElseTheLowestChannel) {
    using Channels = std::vector<std::pair<unsigned, std::optional<std::string>>>;
    EXPECT_EQ(pick_temperature_channel(Channels{{2, "junction"}, {1, "edge"}, {3, "mem"}}), 1u);
    EXPECT_EQ(pick_temperature_channel(Channels{{3, "mem"}, {2, "junction"}}), 2u);
    EXPECT_EQ(pick_temperature_channel(Channels{{4, std::nullopt}, {2, "pkg"}}), 2u);
    EXPECT_FALSE(pick_temperature_channel(Channels{}));
}

}  // namespace
}  // namespace gpukill::drm

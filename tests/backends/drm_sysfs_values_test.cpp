#include "backends/drm/sysfs_values.hpp"

#include <gtest/gtest.h>

namespace gpukill::drm {
namespace {

TEST(DrmSysfsValues, PciIdsAndClassAreHexWithTheirPrefix) {
    EXPECT_EQ(parse_hex_attribute("0x1002\n"), 0x1002u);
    EXPECT_EQ(parse_hex_attribute("0x740f\n"), 0x740fu);
    EXPECT_EQ(parse_hex_attribute("0x120000\n"), 0x120000u);
    EXPECT_EQ(parse_hex_attribute("0x8086"), 0x8086u);
    EXPECT_FALSE(parse_hex_attribute("1002\n"));
    EXPECT_FALSE(parse_hex_attribute("0x\n"));
    EXPECT_FALSE(parse_hex_attribute("0x10g2\n"));
    EXPECT_FALSE(parse_hex_attribute("0x123456789\n"));
    EXPECT_FALSE(parse_hex_attribute(""));
}

TEST(DrmSysfsValues, IntegersEndWithOneNewlineAndNothingElse) {
    EXPECT_EQ(parse_unsigned_attribute("206141652992\n"), 206141652992u);
    EXPECT_EQ(parse_unsigned_attribute("0\n"), 0u);
    EXPECT_EQ(parse_unsigned_attribute("53894"), 53894u);  // kfd queue gpuid: no newline
    EXPECT_FALSE(parse_unsigned_attribute("12 \n"));
    EXPECT_FALSE(parse_unsigned_attribute("-1\n"));
    EXPECT_FALSE(parse_unsigned_attribute("\n"));
    EXPECT_FALSE(parse_unsigned_attribute("18446744073709551616\n"));
    EXPECT_EQ(parse_signed_attribute("-5000\n"), -5000);
}

TEST(DrmSysfsValues, TextDropsItsNewlineAndEmptyTextIsNoValue) {
    EXPECT_EQ(parse_text_attribute("AMD Instinct MI300X OAM\n"), "AMD Instinct MI300X OAM");
    EXPECT_FALSE(parse_text_attribute("\n"));  // amdgpu on a card without a FRU
    EXPECT_FALSE(parse_text_attribute(""));
}

TEST(DrmSysfsValues, MillidegreesRoundToWholeDegrees) {
    EXPECT_EQ(parse_millidegrees_celsius("41000\n"), 41);
    EXPECT_EQ(parse_millidegrees_celsius("73500\n"), 74);
    EXPECT_EQ(parse_millidegrees_celsius("-2400\n"), -2);
    EXPECT_FALSE(parse_millidegrees_celsius("41.0\n"));
    EXPECT_FALSE(parse_millidegrees_celsius("99999999\n"));
}

TEST(DrmSysfsValues, MicrowattsAreWatts) {
    EXPECT_DOUBLE_EQ(*parse_microwatts("152000000\n"), 152.0);
    EXPECT_DOUBLE_EQ(*parse_microwatts("28500000\n"), 28.5);
    EXPECT_FALSE(parse_microwatts("n/a\n"));
}

TEST(DrmSysfsValues, BusyPercentIsZeroToHundred) {
    EXPECT_EQ(parse_busy_percent("87\n"), 87u);
    EXPECT_EQ(parse_busy_percent("100\n"), 100u);
    EXPECT_FALSE(parse_busy_percent("101\n"));
    EXPECT_FALSE(parse_busy_percent("-22\n"));  // amdgpu's error code printed as a value
}

TEST(DrmSysfsValues, VendorIdsNameVendors) {
    EXPECT_EQ(vendor_from_pci_id(0x1002), Vendor::amd);
    EXPECT_EQ(vendor_from_pci_id(0x8086), Vendor::intel);
    EXPECT_EQ(vendor_from_pci_id(0x10de), Vendor::nvidia);
    EXPECT_EQ(vendor_from_pci_id(0x1022), Vendor::other);  // AMD's CPU and chipset id
    EXPECT_EQ(vendor_from_pci_id(0x1af4), Vendor::other);  // virtio
}

TEST(DrmSysfsValues, OnlyDisplayAndAcceleratorClassesAreGpus) {
    EXPECT_TRUE(is_gpu_pci_class(0x030000));   // VGA
    EXPECT_TRUE(is_gpu_pci_class(0x030200));   // 3D controller
    EXPECT_TRUE(is_gpu_pci_class(0x038000));   // display controller (MI250)
    EXPECT_TRUE(is_gpu_pci_class(0x120000));   // processing accelerator (MI300X)
    EXPECT_FALSE(is_gpu_pci_class(0x040300));  // HD audio
    EXPECT_FALSE(is_gpu_pci_class(0x060000));  // host bridge
    EXPECT_FALSE(is_gpu_pci_class(0x108000));  // encryption controller (AMD PSP)
}

TEST(DrmSysfsValues, NodeNamesAreCardOrRenderWithAMinor) {
    EXPECT_EQ(drm_node_minor("card", "card0"), 0u);
    EXPECT_EQ(drm_node_minor("card", "card12"), 12u);
    EXPECT_EQ(drm_node_minor("renderD", "renderD128"), 128u);
    EXPECT_FALSE(drm_node_minor("card", "card0-DP-1"));
    EXPECT_FALSE(drm_node_minor("card", "card0-HDMI-A-1"));
    EXPECT_FALSE(drm_node_minor("card", "renderD128"));
    EXPECT_FALSE(drm_node_minor("card", "card"));
    EXPECT_FALSE(drm_node_minor("card", "card01"));
    EXPECT_FALSE(drm_node_minor("card", "version"));
}

TEST(DrmSysfsValues, PowerIsEnergyOverTimeAndNothingWhenTheCounterWentBack) {
    const auto t0 = std::chrono::steady_clock::time_point{} + std::chrono::seconds(100);
    EnergySample earlier{1'000'000'000, t0};
    EnergySample later{1'019'000'000, t0 + std::chrono::milliseconds(100)};
    EXPECT_NEAR(*power_from_energy(earlier, later), 190.0, 1e-9);
    EXPECT_EQ(power_from_energy(earlier, EnergySample{1'000'000'000, later.at}), 0.0);
    EXPECT_FALSE(power_from_energy(later, EnergySample{5'000, later.at + std::chrono::seconds(1)}));
    EXPECT_FALSE(power_from_energy(earlier, EnergySample{1'100'000'000, t0}));
}

}  // namespace
}  // namespace gpukill::drm

#include "backends/drm/drm_card_scan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>

#include "drm_fixture_support.hpp"

namespace gpukill::drm {
namespace {

using testing::fixture_roots;
using testing::SysfsCopy;

const SkippedCard* find_skipped(const CardScan& scan, std::string_view card) {
    auto it = std::find_if(scan.skipped.begin(), scan.skipped.end(),
                           [&](const SkippedCard& s) { return s.card == card; });
    return it == scan.skipped.end() ? nullptr : &*it;
}

TEST(DrmCardScan, FindsEachMi300xWithItsPciParentDriverAndRenderNode) {
    auto scan = scan_drm_cards(fixture_roots("amd_mi300x"));
    ASSERT_TRUE(scan) << scan.error().what;
    ASSERT_EQ(scan->gpus.size(), 2u);
    const DrmCard& first = scan->gpus[0];
    EXPECT_EQ(first.card, "card0");
    EXPECT_EQ(first.card_minor, 0u);
    // Behind three bridges: the GPU's own address, not a bridge's.
    EXPECT_EQ(first.pci_bus_id, "0000:03:00.0");
    EXPECT_EQ(first.vendor, Vendor::amd);
    EXPECT_EQ(first.vendor_id, 0x1002u);
    EXPECT_EQ(first.device_id, 0x74a1u);
    EXPECT_EQ(first.driver, "amdgpu");
    EXPECT_EQ(first.render_node, "renderD128");
    EXPECT_EQ(scan->gpus[1].pci_bus_id, "0000:83:00.0");
    EXPECT_EQ(scan->gpus[1].render_node, "renderD129");
    EXPECT_TRUE(scan->skipped.empty());
    EXPECT_TRUE(scan->problems.empty());
}

TEST(DrmCardScan, ConnectorsAndTheVersionFileAreNotCards) {
    auto scan = scan_drm_cards(fixture_roots("intel_xe"));
    ASSERT_TRUE(scan) << scan.error().what;
    ASSERT_EQ(scan->gpus.size(), 2u);  // card0-DP-1, card0-HDMI-A-1, card1-eDP-1 are not
    EXPECT_EQ(scan->gpus[0].card, "card0");
    EXPECT_EQ(scan->gpus[0].driver, "xe");
    EXPECT_EQ(scan->gpus[0].vendor, Vendor::intel);
    EXPECT_EQ(scan->gpus[1].card, "card1");
    EXPECT_EQ(scan->gpus[1].driver, "i915");
    EXPECT_EQ(scan->gpus[1].pci_bus_id, "0000:00:02.0");
    EXPECT_TRUE(scan->skipped.empty());
}

TEST(DrmCardScan, NvidiaDriverCardsAndDisplayOnlyBmcVgaAreLeftOut) {
    auto scan = scan_drm_cards(fixture_roots("mixed_with_nvidia_drm"));
    ASSERT_TRUE(scan) << scan.error().what;
    ASSERT_EQ(scan->gpus.size(), 1u);
    EXPECT_EQ(scan->gpus[0].card, "card2");
    EXPECT_EQ(scan->gpus[0].pci_bus_id, "0000:c3:00.0");
    EXPECT_EQ(scan->gpus[0].render_node, "renderD129");
    const SkippedCard* nvidia = find_skipped(*scan, "card1");
    ASSERT_NE(nvidia, nullptr);
    EXPECT_NE(nvidia->reason.find("NVML"), std::string::npos);
    const SkippedCard* bmc = find_skipped(*scan, "card0");
    ASSERT_NE(bmc, nullptr);
    EXPECT_NE(bmc->reason.find("no render node"), std::string::npos);
}

TEST(DrmCardScan, AnAmdCpuOrChipsetIsNeverAGpu) {
    auto scan = scan_drm_cards(fixture_roots("amd_cpu_chipset_only"));
    ASSERT_TRUE(scan) << scan.error().what;
    EXPECT_TRUE(scan->gpus.empty());
    const SkippedCard* framebuffer = find_skipped(*scan, "card0");
    ASSERT_NE(framebuffer, nullptr);
    EXPECT_EQ(framebuffer->reason, "not a PCI device");
    const SkippedCard* psp = find_skipped(*scan, "card1");
    ASSERT_NE(psp, nullptr);
    EXPECT_NE(psp->reason.find("0x108000"), std::string::npos);
}

TEST(DrmCardScan, WithoutClassDrmTheScanFailsWithEnoent) {
    SysfsCopy empty("");
    auto scan = scan_drm_cards(empty.roots());
    ASSERT_FALSE(scan);
    EXPECT_EQ(scan.error().errno_value, ENOENT);
}

TEST(DrmCardScan, ReasonsFollowFromTheFacts) {
    CardFacts gpu{.card = "card0",
                  .pci_bus_id = "0000:03:00.0",
                  .vendor_id = 0x1002,
                  .device_id = 0x744c,
                  .pci_class = 0x030000,
                  .driver = "amdgpu",
                  .render_node = "renderD128"};
    EXPECT_FALSE(reason_not_a_gpu(gpu));
    CardFacts platform = gpu;
    platform.pci_bus_id.reset();
    EXPECT_TRUE(reason_not_a_gpu(platform));
    CardFacts nvidia = gpu;
    nvidia.driver = "nvidia";
    EXPECT_TRUE(reason_not_a_gpu(nvidia));
    CardFacts nouveau = gpu;
    nouveau.driver = "nouveau";
    nouveau.vendor_id = 0x10de;
    EXPECT_FALSE(reason_not_a_gpu(nouveau));  // an NVIDIA GPU on nouveau is DRM's to list
    CardFacts audio = gpu;
    audio.pci_class = 0x040300;
    EXPECT_TRUE(reason_not_a_gpu(audio));
    CardFacts unreadable = gpu;
    unreadable.pci_class.reset();
    EXPECT_TRUE(reason_not_a_gpu(unreadable));
}

TEST(DrmCardScan, NamesFallBackToVendorAndDeviceThenDriver) {
    DrmCard card{.device_id = 0x740f, .vendor = Vendor::amd, .driver = "amdgpu"};
    EXPECT_EQ(display_name(card, std::string("AMD Instinct MI210")), "AMD Instinct MI210");
    EXPECT_EQ(display_name(card, std::nullopt), "AMD GPU 0x740f");
    card.vendor = Vendor::intel;
    card.device_id = 0x56a0;
    EXPECT_EQ(display_name(card, std::nullopt), "Intel GPU 0x56a0");
    card.vendor = Vendor::other;
    card.driver = "virtio_gpu";
    card.device_id = 0x1050;
    EXPECT_EQ(display_name(card, std::nullopt), "virtio_gpu GPU 0x1050");
}

}  // namespace
}  // namespace gpukill::drm

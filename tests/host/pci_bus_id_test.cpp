// normalize_pci_bus_id (src/model) and the sysfs-path helper that uses it.
#include <gtest/gtest.h>

#include "host/drm_pci.hpp"
#include "model/pci_bus_id.hpp"

namespace gpukill {
namespace {

TEST(NormalizePciBusId, NvmlSysfsAndShortSpellingsAgree) {
    EXPECT_EQ(normalize_pci_bus_id("00000000:3B:00.0"), "0000:3b:00.0");  // NVML
    EXPECT_EQ(normalize_pci_bus_id("0000:3b:00.0"), "0000:3b:00.0");      // sysfs
    EXPECT_EQ(normalize_pci_bus_id("3b:00.0"), "0000:3b:00.0");           // lspci
    EXPECT_EQ(normalize_pci_bus_id("3B:1F.7"), "0000:3b:1f.7");
    EXPECT_EQ(normalize_pci_bus_id("0001:C1:00.1"), "0001:c1:00.1");
    EXPECT_EQ(normalize_pci_bus_id("00000002:00:1e.0"), "0002:00:1e.0");
    EXPECT_EQ(normalize_pci_bus_id("0:03:00.0"), "0000:03:00.0");
}

TEST(NormalizePciBusId, WideDomainsKeepTheirDigits) {
    // Intel VMD puts devices in domains above 0xffff; sysfs prints them with %04x.
    EXPECT_EQ(normalize_pci_bus_id("10000:E1:00.0"), "10000:e1:00.0");
    EXPECT_EQ(normalize_pci_bus_id("00010000:e1:00.0"), "10000:e1:00.0");
}

TEST(NormalizePciBusId, SurroundingWhitespaceFromFilesIsIgnored) {
    EXPECT_EQ(normalize_pci_bus_id("0000:3b:00.0\n"), "0000:3b:00.0");
    EXPECT_EQ(normalize_pci_bus_id("  00000000:3B:00.0 "), "0000:3b:00.0");
}

TEST(NormalizePciBusId, RejectsMalformed) {
    for (std::string_view bad : {"",
                                 "0000:3b:00",
                                 "0000:3b.00.0",
                                 "0000:3b:00.8",
                                 "0000:3b:20.0",
                                 "0000:3b:0.0",
                                 "0000:3b:000.0",
                                 "0000:b:00.0",
                                 "0000:3bb:00.0",
                                 "000000000:3b:00.0",
                                 "g000:3b:00.0",
                                 "0000:3b:00.0.1",
                                 "0000:3b:00.",
                                 ":3b:00.0",
                                 "0000::00.0",
                                 "0000:3b:00.0x",
                                 "0000:3b:00.0 extra",
                                 "pci0000:00",
                                 "0000:3b:-1.0",
                                 "0000:+b:00.0",
                                 "3b:00:00:00.0"}) {
        EXPECT_FALSE(normalize_pci_bus_id(bad)) << bad;
    }
}

TEST(InnermostPciComponent, DeviceBehindBridges) {
    EXPECT_EQ(innermost_pci_component("../../../devices/pci0000:00/0000:00:01.0/0000:03:00.0"),
              "0000:03:00.0");
    EXPECT_EQ(innermost_pci_component("../../../0000:03:00.0"), "0000:03:00.0");
    EXPECT_EQ(innermost_pci_component("/sys/devices/pci0000:00/0000:00:02.0/virtio0"),
              "0000:00:02.0");
    EXPECT_FALSE(innermost_pci_component("../../../virtio0"));
    EXPECT_FALSE(innermost_pci_component("/sys/devices/platform/soc/fd500000.gpu"));
    EXPECT_FALSE(innermost_pci_component("/sys/devices/pci0000:00"));
    EXPECT_FALSE(innermost_pci_component(""));
}

}  // namespace
}  // namespace gpukill

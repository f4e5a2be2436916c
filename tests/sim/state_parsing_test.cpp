// Pure parsers of the simulator's state library: sizes, PCI addresses, /proc/PID/stat.

#include <gtest/gtest.h>

#include "state/pci.hpp"
#include "state/proc_identity.hpp"
#include "state/size.hpp"

namespace {

TEST(ParseSize, AcceptsBytesAndBinaryUnits) {
    EXPECT_EQ(gpusim::parse_size("1024").value(), 1024U);
    EXPECT_EQ(gpusim::parse_size("0").value(), 0U);
    EXPECT_EQ(gpusim::parse_size("512M").value(), 512ULL << 20);
    EXPECT_EQ(gpusim::parse_size("4G").value(), 4ULL << 30);
    EXPECT_EQ(gpusim::parse_size("1.5G").value(), 3ULL << 29);
    EXPECT_EQ(gpusim::parse_size("2T").value(), 2ULL << 40);
    EXPECT_EQ(gpusim::parse_size("8k").value(), 8192U);
    EXPECT_EQ(gpusim::parse_size("80GiB").value(), 80ULL << 30);
    EXPECT_EQ(gpusim::parse_size("80GB").value(), 80ULL << 30);
}

TEST(ParseSize, RejectsMalformedSizesAsUsageErrors) {
    for (const char* bad :
         {"", "-5G", "G", "1.5", "12X", "1.G", "4 G", "99999999999999999999", "20000000T"}) {
        const auto parsed = gpusim::parse_size(bad);
        ASSERT_FALSE(parsed.has_value()) << bad;
        EXPECT_EQ(parsed.error().exit_code, gpusim::kExitUsage) << bad;
        EXPECT_NE(parsed.error().message.find("bad size"), std::string::npos);
    }
}

TEST(PciAddress, ParsesAndFormatsTheWaysNvmlDoes) {
    const auto address = gpusim::parse_pci_address("0000:2a:00.0");
    ASSERT_TRUE(address.has_value());
    EXPECT_EQ(address->bus, 0x2AU);
    EXPECT_EQ(gpusim::format_bus_id(*address), "00000000:2A:00.0");
    EXPECT_EQ(gpusim::format_legacy_bus_id(*address), "0000:2A:00.0");
    EXPECT_FALSE(gpusim::parse_pci_address("00000000:18:00").has_value());
    EXPECT_FALSE(gpusim::parse_pci_address("00000000:118:00.0").has_value());
    EXPECT_FALSE(gpusim::parse_pci_address("zz:00.0").has_value());
}

TEST(ProcStat, FindsStateAndStartTimeAfterAnAwkwardName) {
    const std::string stat =
        "4242 (evil) name (x) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 "
        "1000 10 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0\n";
    const auto parsed = gpusim::parse_proc_stat(stat);
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(parsed->state, 'S');
    EXPECT_EQ(parsed->start_time_ticks, 987654U);
    EXPECT_FALSE(gpusim::parse_proc_stat("4242 (truncated) S 1 2").has_value());
}

}  // namespace

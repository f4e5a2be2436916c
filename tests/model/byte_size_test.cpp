#include "model/byte_size.hpp"

#include <gtest/gtest.h>

namespace gpukill {
namespace {

TEST(ByteSize, AcceptsTheFormsPeopleWrite) {
    EXPECT_EQ(parse_byte_size("1024"), 1024u);
    EXPECT_EQ(parse_byte_size("512M"), 512ULL << 20);
    EXPECT_EQ(parse_byte_size("4G"), 4ULL << 30);
    EXPECT_EQ(parse_byte_size("1.5G"), 1536ULL << 20);
    EXPECT_EQ(parse_byte_size("80GiB"), 80ULL << 30);
    EXPECT_EQ(parse_byte_size("2t"), 2ULL << 40);
}

TEST(ByteSize, RejectsWhatIsNotASize) {
    for (const char* bad : {"", "-1G", "G", "4X", "1.5", "1.G", "99999999999T", "4 G"}) {
        auto parsed = parse_byte_size(bad);
        EXPECT_FALSE(parsed.has_value()) << bad;
        if (!parsed) {
            EXPECT_NE(parsed.error().what.find("bad size"), std::string::npos);
        }
    }
}

}  // namespace
}  // namespace gpukill

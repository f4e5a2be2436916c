// The "did you mean" of mistyped commands and options.
#include "cli/suggest.hpp"

#include <gtest/gtest.h>

namespace gpukill::cli {
namespace {

TEST(Suggest, EditDistanceCountsASwapOfNeighboursAsOne) {
    EXPECT_EQ(edit_distance("lsit", "list"), 1u);
    EXPECT_EQ(edit_distance("kil", "kill"), 1u);
    EXPECT_EQ(edit_distance("reset", "reset"), 0u);
    EXPECT_EQ(edit_distance("", "abc"), 3u);
}

TEST(Suggest, TheClosestWithinAThirdOfTheWord) {
    const std::vector<std::string> commands = {"list",  "kill",   "reset", "audit",
                                               "guard", "doctor", "check"};
    EXPECT_EQ(closest("lsit", commands), "list");
    EXPECT_EQ(closest("rset", commands), "reset");
    EXPECT_EQ(closest("chekc", commands), "check");
    EXPECT_EQ(closest("agent", commands), std::nullopt);  // nothing that close
    EXPECT_EQ(closest("--detail", {"--details", "--dry-run"}), "--details");
}

}  // namespace
}  // namespace gpukill::cli

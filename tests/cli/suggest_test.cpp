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

// "did you mean '--no-rogue'" to someone who typed --no-rogue helps nobody: an option
// given before its command is told where it goes (issue 33).
TEST(Suggest, NeverTheWordItselfAndAMisplacedOptionIsToldWhereItGoes) {
    EXPECT_EQ(closest("--no-rogue", {"--no-rogue", "--no-orphans"}), std::nullopt);
    EXPECT_EQ(unknown_option_message("--no-rogue", {"--no-rogue", "--no-orphans"}, {"check"}),
              "--no-rogue is an option of check: give it after the command (gpukill check "
              "--no-rogue)");
    EXPECT_EQ(unknown_option_message("--no-rouge", {"--no-rogue", "--no-orphans"}, {}),
              "unknown option '--no-rouge'; did you mean '--no-rogue'?");
    EXPECT_EQ(unknown_option_message("--frobnicate", {"--no-rogue"}, {}),
              "unknown option '--frobnicate' (see gpukill --help)");
    EXPECT_EQ(unknown_option_message("--gpu", {"--gpu"}, {"list", "kill", "reset"}),
              "--gpu is an option of list, kill and reset: give it after the command (gpukill "
              "list --gpu)");
}

}  // namespace
}  // namespace gpukill::cli

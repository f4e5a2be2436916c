#include <gtest/gtest.h>

#include "reclaim/select.hpp"

namespace gpukill::reclaim {
namespace {

constexpr pid_t kPidMax = 4194304;

TEST(ReclaimPidArgument, AcceptsPlainDecimal) {
    EXPECT_EQ(parse_target_pid("4242", kPidMax).value(), 4242);
    EXPECT_EQ(parse_target_pid("2", kPidMax).value(), 2);
    EXPECT_EQ(parse_target_pid("4194303", kPidMax).value(), 4194303);
}

TEST(ReclaimPidArgument, InitParsesSoThePlanCanExplainTheRefusal) {
    EXPECT_EQ(parse_target_pid("1", kPidMax).value(), 1);
}

TEST(ReclaimPidArgument, LeadingZerosAreDecimal) {
    EXPECT_EQ(parse_target_pid("007", kPidMax).value(), 7);
    EXPECT_EQ(parse_target_pid("010", kPidMax).value(), 10);  // not octal
}

TEST(ReclaimPidArgument, RefusesEveryBadForm) {
    for (const char* bad : {"0",
                            "00",
                            "-1",
                            "-5",
                            "4194304",
                            "4194305",
                            "abc",
                            "",
                            "1e3",
                            " 12",
                            "12 ",
                            "+12",
                            "99999999999999999999",
                            "0x10",
                            "12abc",
                            "1.5",
                            "-",
                            "--5",
                            "\t12",
                            "12\n"}) {
        auto pid = parse_target_pid(bad, kPidMax);
        EXPECT_FALSE(pid.has_value()) << "accepted \"" << bad << "\" as " << pid.value_or(0);
    }
}

TEST(ReclaimPidArgument, MessagesSayWhatTheNumberWouldHaveMeant) {
    EXPECT_NE(parse_target_pid("-1", kPidMax).error().what.find("every process"),
              std::string::npos);
    EXPECT_NE(parse_target_pid("-5", kPidMax).error().what.find("process group 5"),
              std::string::npos);
    EXPECT_NE(parse_target_pid("0", kPidMax).error().what.find("process group"), std::string::npos);
    EXPECT_NE(parse_target_pid("4194305", kPidMax).error().what.find("pid_max"), std::string::npos);
    EXPECT_NE(parse_target_pid("abc", kPidMax).error().what.find("not a PID"), std::string::npos);
}

TEST(ReclaimPidArgument, HonoursASmallPidMax) {
    EXPECT_EQ(parse_target_pid("32767", 32768).value(), 32767);
    EXPECT_FALSE(parse_target_pid("32768", 32768).has_value());
}

}  // namespace
}  // namespace gpukill::reclaim

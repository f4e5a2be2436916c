#include <gtest/gtest.h>

#include "reclaim/execute.hpp"

namespace gpukill::reclaim {
namespace {

TEST(ReclaimSignalNames, AcceptsTheFormsKillAccepts) {
    for (const char* text : {"SIGTERM", "TERM", "term", "SigTerm", "15"}) {
        EXPECT_EQ(parse_signal_name(text).value_or(-1), SIGTERM) << text;
    }
    EXPECT_EQ(parse_signal_name("SIGKILL").value_or(-1), SIGKILL);
    EXPECT_EQ(parse_signal_name("9").value_or(-1), SIGKILL);
    EXPECT_EQ(parse_signal_name("INT").value_or(-1), SIGINT);
    EXPECT_EQ(parse_signal_name("hup").value_or(-1), SIGHUP);
    EXPECT_EQ(parse_signal_name("SIGQUIT").value_or(-1), SIGQUIT);
    EXPECT_EQ(parse_signal_name("USR1").value_or(-1), SIGUSR1);
    EXPECT_EQ(parse_signal_name("sigusr2").value_or(-1), SIGUSR2);
    EXPECT_EQ(parse_signal_name("CONT").value_or(-1), SIGCONT);
    EXPECT_EQ(parse_signal_name("IOT").value_or(-1), SIGABRT);
    EXPECT_EQ(parse_signal_name("31").value_or(-1), 31);
}

TEST(ReclaimSignalNames, RejectsZeroOutOfRangeAndUnknown) {
    for (const char* text : {"0", "32", "64", "-9", "+9", "", "SIG", "TERMX", "SIGSIGTERM", "RTMIN",
                             " 15", "15 ", "9x", "999999999999"}) {
        EXPECT_FALSE(parse_signal_name(text).has_value()) << "\"" << text << "\"";
    }
    EXPECT_NE(parse_signal_name("0").error().what.find("exists"), std::string::npos);
}

TEST(ReclaimSignalNames, NamesRoundTrip) {
    for (int signal = 1; signal <= 31; ++signal) {
        const std::string name = signal_name(signal);
        ASSERT_TRUE(name.starts_with("SIG")) << signal;
        EXPECT_EQ(parse_signal_name(name).value_or(-1), signal) << name;
    }
    EXPECT_EQ(signal_name(SIGTERM), "SIGTERM");
    EXPECT_EQ(signal_name(SIGKILL), "SIGKILL");
    EXPECT_EQ(signal_name(40), "signal 40");
}

TEST(ReclaimNames, EnumsHaveSnakeCaseNames) {
    EXPECT_STREQ(to_string(Outcome::terminated), "terminated");
    EXPECT_STREQ(to_string(Outcome::gone), "gone");
    EXPECT_STREQ(to_string(TargetReason::holds_same_gpu), "holds_same_gpu");
    EXPECT_STREQ(to_string(RefusalKind::self_or_ancestor), "self_or_ancestor");
    EXPECT_STREQ(to_string(RefusalKind::stale_identity), "stale_identity");
}

}  // namespace
}  // namespace gpukill::reclaim

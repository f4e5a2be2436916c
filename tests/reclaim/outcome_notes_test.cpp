#include "reclaim/outcome_notes.hpp"

#include <gtest/gtest.h>

namespace gpukill::reclaim {
namespace {

TEST(ReclaimOutcomeNotes, UninterruptibleSleepPointsAtResetOrReboot) {
    EXPECT_EQ(survivor_note('D', ExecuteOptions{}, true),
              "in uninterruptible sleep (D), usually waiting on the GPU driver or I/O: SIGKILL "
              "takes effect when it wakes; if it never does, reset the GPU (gpukill reset) or "
              "reboot");
}

TEST(ReclaimOutcomeNotes, StoppedProcessesSayWhatHoldsTheSignal) {
    EXPECT_NE(survivor_note('T', ExecuteOptions{}, false).find("SIGCONT"), std::string::npos);
    EXPECT_NE(survivor_note('t', ExecuteOptions{}, false).find("debugger"), std::string::npos);
}

TEST(ReclaimOutcomeNotes, RunningSurvivorSuggestsForceOnlyBeforeSigkill) {
    const ExecuteOptions options{.timeout_seconds = 2.5, .kill_timeout_seconds = 5};
    EXPECT_EQ(survivor_note('S', options, false),
              "still running 2.5 s after SIGTERM (it ignores or handles it without exiting); use "
              "--force to send SIGKILL after the timeout");
    EXPECT_EQ(survivor_note('R', options, true), "still running 5 s after SIGKILL");
}

TEST(ReclaimOutcomeNotes, DeniedAndZombie) {
    EXPECT_EQ(denied_note("bob", SIGTERM),
              "permission denied sending SIGTERM; run as root or as bob");
    EXPECT_EQ(denied_note("", SIGKILL),
              "permission denied sending SIGKILL; run as root or as its owner");
    EXPECT_TRUE(zombie_note(4242).starts_with("zombie: parent 4242 has not reaped it"));
}

}  // namespace
}  // namespace gpukill::reclaim

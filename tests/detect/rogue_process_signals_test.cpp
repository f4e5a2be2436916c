// Where the program lives (deleted, scratch directories) and whether anyone's session
// still holds the process (unattended): each weak alone, by design.
#include "detect/executable_signals.hpp"
#include "detect/unattended_signal.hpp"

#include <gtest/gtest.h>

#include "rogue_test_support.hpp"

namespace gpukill::detect {
namespace {

using rogue_test::find;
using rogue_test::has;
using rogue_test::process;

const RogueConfig kConfig = default_rogue_config();

TEST(RogueExecutable, DeletedAfterStart) {
    ProcessInfo info = process("worker", "/opt/app/worker", {"worker"});
    info.exe_deleted = true;
    auto evidence = judge_executable(info, kConfig);
    const Evidence* deleted = find(evidence, Signal::exe_deleted);
    ASSERT_NE(deleted, nullptr);
    EXPECT_EQ(deleted->weight, 30);
    EXPECT_LT(deleted->weight, kConfig.report_threshold) << "a package upgrade does this too";
    EXPECT_FALSE(has(evidence, Signal::exe_in_temp_dir));
}

TEST(RogueExecutable, ScratchDirectoriesButNotLookAlikes) {
    for (const char* exe : {"/tmp/x", "/tmp/.hidden/kworker", "/dev/shm/m", "/var/tmp/a/b"}) {
        EXPECT_TRUE(
            has(judge_executable(process("x", exe, {"x"}), kConfig), Signal::exe_in_temp_dir))
            << exe;
    }
    for (const char* exe : {"/tmpfs/x", "/usr/bin/python3.11", "/var/tmpx/y", "/tmp"}) {
        EXPECT_FALSE(
            has(judge_executable(process("x", exe, {"x"}), kConfig), Signal::exe_in_temp_dir))
            << exe;
    }
}

TEST(RogueExecutable, DroppedInTmpAndDeletedReachesTheThreshold) {
    ProcessInfo info = process("worker", "/tmp/gpukill-x/worker", {"./worker"});
    info.exe_deleted = true;
    auto evidence = judge_executable(info, kConfig);
    ASSERT_EQ(evidence.size(), 2u);
    EXPECT_EQ(total_score(evidence), 60);
    EXPECT_GE(total_score(evidence), kConfig.report_threshold);
}

TEST(RogueExecutable, UnknownExecutableRaisesNothing) {
    EXPECT_TRUE(judge_executable(process("x", std::nullopt, {"x"}), kConfig).empty());
}

TEST(RogueExecutable, ConfiguredDirectories) {
    RogueConfig config = default_rogue_config();
    config.temp_dirs = {"/scratch/"};
    EXPECT_TRUE(has(judge_executable(process("x", "/scratch/u/x", {"x"}), config),
                    Signal::exe_in_temp_dir));
    EXPECT_FALSE(
        has(judge_executable(process("x", "/tmp/x", {"x"}), config), Signal::exe_in_temp_dir));
}

TEST(RogueUnattended, OrphanedOrSessionGoneForLong) {
    const double seven_hours = 7 * 3600;
    auto orphan = judge_unattended(
        {.orphaned = true, .session_leader_alive = true, .age_seconds = seven_hours}, kConfig);
    ASSERT_TRUE(orphan);
    EXPECT_EQ(orphan->weight, 15);
    EXPECT_NE(orphan->detail.find("parent died"), std::string::npos);
    EXPECT_NE(orphan->detail.find("7.0 hours"), std::string::npos) << orphan->detail;

    auto detached = judge_unattended(
        {.orphaned = false, .session_leader_alive = false, .age_seconds = seven_hours}, kConfig);
    ASSERT_TRUE(detached);
    EXPECT_NE(detached->detail.find("session leader is gone"), std::string::npos);
}

TEST(RogueUnattended, YoungAttendedOrUnknownRaisesNothing) {
    EXPECT_FALSE(judge_unattended(
        {.orphaned = true, .session_leader_alive = false, .age_seconds = 3600}, kConfig));
    EXPECT_FALSE(judge_unattended(
        {.orphaned = false, .session_leader_alive = true, .age_seconds = 100 * 3600}, kConfig));
    EXPECT_FALSE(judge_unattended(
        {.orphaned = false, .session_leader_alive = std::nullopt, .age_seconds = 100 * 3600},
        kConfig));
    EXPECT_FALSE(judge_unattended(
        {.orphaned = true, .session_leader_alive = false, .age_seconds = std::nullopt}, kConfig));
}

TEST(RogueExecutableContent, SeveralMinerStringsAreAFindingWithTheStringsShown) {
    const ExecutableScan scan{{"stratum+tcp", "mining.subscribe", "kawpow"}, 12u << 20, false};
    const ContentVerdict verdict = judge_executable_content(scan, kConfig);
    ASSERT_TRUE(verdict.evidence);
    EXPECT_EQ(verdict.evidence->signal, Signal::miner_signature);
    EXPECT_EQ(verdict.evidence->weight, 60);
    EXPECT_EQ(verdict.evidence->detail,
              "the executable carries strings of mining programs: \"stratum+tcp\", "
              "\"mining.subscribe\" and \"kawpow\" (in all 12.0 MiB of the executable)");
}

TEST(RogueExecutableContent, OneStringByChanceOrNoneIsANoteOnly) {
    const ContentVerdict one = judge_executable_content({{"randomx"}, 6u << 20, true}, kConfig);
    EXPECT_FALSE(one.evidence);
    EXPECT_EQ(one.note,
              "miner strings in the first 6.0 MiB of the executable: \"randomx\" (fewer than the "
              "2 needed)");
    const ContentVerdict none = judge_executable_content({{}, 1u << 20, false}, kConfig);
    EXPECT_FALSE(none.evidence);
    EXPECT_EQ(none.note, "no miner strings in all 1.0 MiB of the executable");

    RogueConfig strict = default_rogue_config();
    strict.executable_scan.min_signatures = 1;
    EXPECT_TRUE(judge_executable_content({{"randomx"}, 10, false}, strict).evidence);
    strict.set_weight(Signal::miner_signature, 0);
    EXPECT_FALSE(judge_executable_content({{"randomx", "kawpow"}, 10, false}, strict).evidence);
}

TEST(RogueExecutableContent, UntrustedBytesAreShownEscaped) {
    RogueConfig config = default_rogue_config();
    const ContentVerdict verdict =
        judge_executable_content({{"a\"b\x1b[2J", "kawpow"}, 10, false}, config);
    ASSERT_TRUE(verdict.evidence);
    EXPECT_EQ(verdict.evidence->detail.find('\x1b'), std::string::npos) << verdict.evidence->detail;
}

}  // namespace
}  // namespace gpukill::detect

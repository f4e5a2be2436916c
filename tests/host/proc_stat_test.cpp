// parse_proc_stat on the kernel's /proc/PID/stat lines, including hostile comm names
// and every truncation of a valid line.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

#include "host/proc_parse.hpp"
#include "host_test_support.hpp"

namespace gpukill {
namespace {

using host_test::fixture;

constexpr unsigned kPfKthread = 0x00200000;

TEST(ParseProcStat, CommWithSpaceAndParenthesisEndsAtLastParen) {
    auto stat = parse_proc_stat(fixture("proc/pid_stat/comm_paren.txt"));
    ASSERT_TRUE(stat) << stat.error().what;
    EXPECT_EQ(stat->pid, 31337);
    EXPECT_EQ(stat->comm, "a) b");
    EXPECT_EQ(stat->state, 'S');
    EXPECT_EQ(stat->ppid, 2101);
    EXPECT_EQ(stat->pgid, 31337);
    EXPECT_EQ(stat->sid, 2101);
    EXPECT_EQ(stat->flags, 4194304u);
    EXPECT_EQ(stat->start_time_ticks, 4398046511104ull);  // 2^42: beyond 32 bits
    EXPECT_EQ(stat->flags & kPfKthread, 0u);
}

TEST(ParseProcStat, CommWithSpaceAndColon) {
    auto stat = parse_proc_stat(fixture("proc/pid_stat/comm_space.txt"));
    ASSERT_TRUE(stat) << stat.error().what;
    EXPECT_EQ(stat->comm, "tmux: server");
    EXPECT_EQ(stat->ppid, 1);
    EXPECT_EQ(stat->start_time_ticks, 56012u);
}

TEST(ParseProcStat, KernelThreadsCarryPfKthread) {
    auto kthreadd = parse_proc_stat(fixture("proc/pid_stat/kthreadd.txt"));
    ASSERT_TRUE(kthreadd) << kthreadd.error().what;
    EXPECT_EQ(kthreadd->pid, 2);
    EXPECT_EQ(kthreadd->ppid, 0);
    EXPECT_EQ(kthreadd->pgid, 0);
    EXPECT_NE(kthreadd->flags & kPfKthread, 0u);

    auto kworker = parse_proc_stat(fixture("proc/pid_stat/kworker.txt"));
    ASSERT_TRUE(kworker) << kworker.error().what;
    EXPECT_EQ(kworker->comm, "kworker/3:1H-kblockd");
    EXPECT_EQ(kworker->state, 'I');
    EXPECT_EQ(kworker->ppid, 2);
    EXPECT_EQ(kworker->start_time_ticks, 180u);
    EXPECT_NE(kworker->flags & kPfKthread, 0u);
}

TEST(ParseProcStat, Zombie) {
    auto stat = parse_proc_stat(fixture("proc/pid_stat/zombie.txt"));
    ASSERT_TRUE(stat) << stat.error().what;
    EXPECT_EQ(stat->state, 'Z');
    EXPECT_EQ(stat->comm, "python3");
    EXPECT_EQ(stat->ppid, 4200);
    EXPECT_EQ(stat->start_time_ticks, 887766u);
    EXPECT_EQ(stat->flags & kPfKthread, 0u);
}

TEST(ParseProcStat, StartTimeKeptExactlyUpToUint64Max) {
    const std::string line =
        "7 (x) S 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 18446744073709551615 0 0";
    auto stat = parse_proc_stat(line);
    ASSERT_TRUE(stat) << stat.error().what;
    EXPECT_EQ(stat->start_time_ticks, UINT64_MAX);

    // One past uint64 max is not silently wrapped.
    const std::string overflow =
        "7 (x) S 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 18446744073709551616 0 0";
    EXPECT_FALSE(parse_proc_stat(overflow));
}

TEST(ParseProcStat, EmptyCommAndCommWithNewline) {
    auto empty = parse_proc_stat("9 () R 1 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0\n");
    ASSERT_TRUE(empty) << empty.error().what;
    EXPECT_EQ(empty->comm, "");
    EXPECT_EQ(empty->start_time_ticks, 5u);

    auto newline = parse_proc_stat("9 (a\n) b)) R 1 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 6 0\n");
    ASSERT_TRUE(newline) << newline.error().what;
    EXPECT_EQ(newline->comm, "a\n) b)");
    EXPECT_EQ(newline->start_time_ticks, 6u);
}

TEST(ParseProcStat, StartTimeMayBeTheLastField) {
    auto stat = parse_proc_stat("9 (x) R 1 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 77\n");
    ASSERT_TRUE(stat) << stat.error().what;
    EXPECT_EQ(stat->start_time_ticks, 77u);
}

TEST(ParseProcStat, RejectsMalformedLines) {
    EXPECT_FALSE(parse_proc_stat(""));
    EXPECT_FALSE(parse_proc_stat("\n"));
    EXPECT_FALSE(parse_proc_stat("12 cat R 1 12 12"));  // no parentheses
    EXPECT_FALSE(parse_proc_stat("x (cat) R 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 0 0 1 0 5"));
    EXPECT_FALSE(parse_proc_stat("-3 (cat) R 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 0 0 1 0 5"));
    EXPECT_FALSE(parse_proc_stat("3 (cat) R -1 1 1 0 -1 0 0 0 0 0 0 0 0 0 0 0 1 0 5"));
    EXPECT_FALSE(parse_proc_stat("3 (cat) RR 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 0 0 1 0 5"));
    EXPECT_FALSE(parse_proc_stat("3 (cat) R 1 1 1 0 -1 0x10 0 0 0 0 0 0 0 0 0 0 1 0 5"));
    EXPECT_FALSE(parse_proc_stat("3 (cat) R 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 0 0 1 0 -5"));
    EXPECT_FALSE(parse_proc_stat("3 (cat) R 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 0 0 1 0 5x"));
    EXPECT_FALSE(parse_proc_stat("3 (cat)R 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 0 0 1 0 5"));
    EXPECT_FALSE(parse_proc_stat("3 (cat) R  1 1 1 0 -1 0 0 0 0 0 0 0 0 0 0 0 1 0 5"));
    EXPECT_FALSE(parse_proc_stat("3 ) (cat R 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 0 0 1 0 5"));
}

// Every prefix of a valid line is an error value until the starttime field has begun
// (a cut inside its digits cannot be told from a shorter number); none crashes or reads
// past the text (ASan checks the latter).
TEST(ParseProcStat, EveryTruncationIsAnErrorOrAValidPrefix) {
    const std::string line = fixture("proc/pid_stat/comm_paren.txt");
    const auto start_begin = line.find(" 4398046511104 ") + 1;
    const auto start_end = start_begin + std::string("4398046511104").size();
    for (std::size_t n = 0; n < line.size(); ++n) {
        auto stat = parse_proc_stat(line.substr(0, n));
        if (n <= start_begin) {
            EXPECT_FALSE(stat) << "prefix of " << n << " bytes parsed";
        } else if (n < start_end) {
            ASSERT_TRUE(stat);
            EXPECT_EQ(std::to_string(stat->start_time_ticks),
                      line.substr(start_begin, n - start_begin));
        } else {
            ASSERT_TRUE(stat) << "prefix of " << n << " bytes";
            EXPECT_EQ(stat->start_time_ticks, 4398046511104ull);
            EXPECT_EQ(stat->comm, "a) b");
        }
    }
}

TEST(ParseProcStat, RandomBytesNeverCrash) {
    std::mt19937 rng(12345);  // fixed seed: reproducible
    using namespace std::string_literals;
    const std::string alphabet = "0123456789 ()RSZ-\n\0x"s;
    for (int round = 0; round < 2000; ++round) {
        std::string text(rng() % 120, ' ');
        for (auto& c : text) c = alphabet[rng() % alphabet.size()];
        (void)parse_proc_stat(text);
    }
    // Mutations of a valid line.
    const std::string line = fixture("proc/pid_stat/kworker.txt");
    for (int round = 0; round < 2000; ++round) {
        std::string text = line;
        text[rng() % text.size()] = alphabet[rng() % alphabet.size()];
        auto stat = parse_proc_stat(text);
        if (stat) {
            EXPECT_LE(stat->comm.size(), text.size());
        }
    }
}

}  // namespace
}  // namespace gpukill

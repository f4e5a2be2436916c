// parse_proc_stat_usage and parse_proc_environ on the kernel's formats: the CPU time,
// start time and resident pages the monitor shows, counted after the last ')'.
#include <gtest/gtest.h>

#include <string>

#include "host/process_usage.hpp"
#include "host_test_support.hpp"

namespace gpukill {
namespace {

TEST(ProcStatUsage, FieldsAreCountedAfterTheLastParenthesis) {
    auto usage = parse_proc_stat_usage(host_test::fixture("proc/pid_stat/comm_paren.txt"));
    ASSERT_TRUE(usage) << usage.error().what;
    EXPECT_EQ(usage->cpu_ticks, 3u + 1u);  // utime 3, stime 1
    EXPECT_EQ(usage->start_time_ticks, 4398046511104ull);
    EXPECT_EQ(usage->rss_pages, 1024u);
}

TEST(ProcStatUsage, ATruncatedLineIsAnErrorNotZeros) {
    const std::string line = host_test::fixture("proc/pid_stat/comm_paren.txt");
    const std::string cut = line.substr(0, line.find(" 4398046511104"));
    EXPECT_FALSE(parse_proc_stat_usage(cut));
    EXPECT_FALSE(parse_proc_stat_usage("42 (x"));
    EXPECT_FALSE(parse_proc_stat_usage(""));
}

TEST(ProcEnviron, EntriesSplitOnNulAndEmptyOnesDropped) {
    const std::string text("HOME=/root\0CUDA_VISIBLE_DEVICES=0,1\0\0A=b c\0", 43);
    EXPECT_EQ(parse_proc_environ(text),
              (std::vector<std::string>{"HOME=/root", "CUDA_VISIBLE_DEVICES=0,1", "A=b c"}));
    EXPECT_TRUE(parse_proc_environ("").empty());
}

}  // namespace
}  // namespace gpukill

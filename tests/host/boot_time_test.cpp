// Boot time and the conversion of start ticks into wall-clock time.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <limits>

#include "host/boot_time.hpp"
#include "host/proc_reader.hpp"
#include "host_test_support.hpp"
#include "model/start_time.hpp"

namespace gpukill {
namespace {

TEST(ParseBootTime, FromProcStatFixture) {
    auto btime = parse_boot_time(host_test::fixture("proc/system_stat.txt"));
    ASSERT_TRUE(btime) << btime.error().what;
    EXPECT_EQ(*btime, 1700000000);
}

TEST(ParseBootTime, MissingOrMalformed) {
    EXPECT_FALSE(parse_boot_time(""));
    EXPECT_FALSE(parse_boot_time("cpu 1 2 3\nctxt 4\n"));
    EXPECT_FALSE(parse_boot_time("btime abc\n"));
    EXPECT_FALSE(parse_boot_time("btime -5\n"));
    EXPECT_FALSE(parse_boot_time("xbtime 5\n"));
    auto last_line = parse_boot_time("ctxt 4\nbtime 42");
    ASSERT_TRUE(last_line);
    EXPECT_EQ(*last_line, 42);
}

TEST(ReadBootTime, RealProcfsMatchesItsStatFile) {
    auto btime = read_boot_time_unix(HostRoots{});
    ASSERT_TRUE(btime) << btime.error().what;
    auto text = read_text_file("/proc/stat");
    ASSERT_TRUE(text);
    EXPECT_EQ(*btime, *parse_boot_time(*text));
    const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
    EXPECT_GT(*btime, 0);
    EXPECT_LE(*btime, now);
}

TEST(ReadBootTime, MissingProcfsIsAnError) {
    HostRoots roots;
    roots.procfs = "/nonexistent/gpukill/proc";
    auto btime = read_boot_time_unix(roots);
    ASSERT_FALSE(btime);
    EXPECT_EQ(btime.error().errno_value, ENOENT);
}

TEST(ClockTicks, IsSysconf) {
    EXPECT_EQ(clock_ticks_per_second(), ::sysconf(_SC_CLK_TCK));
}

TEST(StartTimeUnixMs, Arithmetic) {
    EXPECT_EQ(start_time_unix_ms(0, 1000, 100), 1000000);
    EXPECT_EQ(start_time_unix_ms(250, 1000, 100), 1002500);
    EXPECT_EQ(start_time_unix_ms(101, 0, 100), 1010);
    EXPECT_EQ(start_time_unix_ms(1, 0, 3), 333);  // truncated toward zero
    EXPECT_EQ(start_time_unix_ms(1000, 0, 1000), 1000);
    EXPECT_EQ(start_time_unix_ms(250, 1000, 0), 1002500);  // nonsense hz: Linux USER_HZ
}

TEST(StartTimeUnixMs, HugeTickCountsSaturateInsteadOfWrapping) {
    constexpr auto max = std::numeric_limits<std::int64_t>::max();
    EXPECT_EQ(start_time_unix_ms(std::numeric_limits<std::uint64_t>::max(), 1700000000, 100), max);
    // Large but representable: no overflow in ticks * 1000.
    const std::uint64_t ticks = (1ULL << 50) + 37;
    EXPECT_EQ(start_time_unix_ms(ticks, 0, 100),
              static_cast<std::int64_t>(ticks / 100 * 1000 + (ticks % 100) * 10));
}

TEST(StartTimeUnixMs, OwnProcessStartedBetweenBootAndNow) {
    auto btime = read_boot_time_unix(HostRoots{});
    ASSERT_TRUE(btime);
    auto ticks = read_start_time(HostRoots{}, ::getpid());
    ASSERT_TRUE(ticks);
    const auto started = start_time_unix_ms(*ticks, *btime, clock_ticks_per_second());
    const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    EXPECT_GE(started, *btime * 1000);
    // btime is whole seconds, so allow one second of rounding.
    EXPECT_LE(started, now_ms + 1000);
}

}  // namespace
}  // namespace gpukill

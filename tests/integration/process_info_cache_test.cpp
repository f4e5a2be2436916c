// The details a watching session keeps between frames (host/process_info_cache.hpp):
// served from one stat read while the process is the same, read again in full when an
// event says it exec'd, and dropped when it is gone. Real processes, the real /proc.
#include <gtest/gtest.h>

#include <set>

#include "execing_shell.hpp"
#include "host/proc_reader.hpp"
#include "host/process_info_cache.hpp"
#include "support.hpp"

namespace gpukill::testing {
namespace {

std::vector<std::string> cmdline_in(const std::vector<ProcessInfo>& infos, pid_t pid) {
    for (const ProcessInfo& info : infos) {
        if (info.pid == pid) return info.cmdline;
    }
    return {"(absent)"};
}

TEST(ProcessInfoCache, KeptDetailsCostOneStatReadAndAnExecIsReadAgain) {
    SimulatedHost host;  // for its temporary root
    ExecingShell shell(host.root(), "");
    ASSERT_TRUE(shell.wait_ready());
    const pid_t pid = shell.command().pid();
    const HostRoots roots{.procfs = "/proc", .sysfs = "/sys", .devfs = "/dev"};
    ProcessInfoCache cache;

    const auto first = cache.read(roots, {pid}, {}, /*full=*/true);
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(cache.full_reads(), 1u);
    const auto kept = cache.read(roots, {pid}, {}, /*full=*/false);
    ASSERT_EQ(kept.size(), 1u);
    EXPECT_EQ(cache.full_reads(), 1u) << "served from the cache";
    EXPECT_EQ(cache.stat_reads(), 1u);
    const auto fresh = read_process(roots, pid);
    ASSERT_TRUE(fresh.has_value());
    EXPECT_EQ(kept[0].cmdline, fresh->cmdline);
    EXPECT_EQ(kept[0].exe, fresh->exe);
    EXPECT_EQ(kept[0].uid, fresh->uid);
    EXPECT_EQ(kept[0].ppid, fresh->ppid);
    EXPECT_EQ(kept[0].start_time_ticks, fresh->start_time_ticks);

    ASSERT_TRUE(shell.exec_now());
    const std::vector<std::string> second = shell.second_cmdline();
    // stat's part is current on every read; the rest waits for the event or a full read.
    EXPECT_NE(cmdline_in(cache.read(roots, {pid}, {}, false), pid), second)
        << "no event named it: kept until a full read";
    EXPECT_EQ(cmdline_in(cache.read(roots, {pid}, {pid}, false), pid), second)
        << "the exec event names it";
    EXPECT_EQ(cache.full_reads(), 2u);
    EXPECT_EQ(cmdline_in(cache.read(roots, {pid}, {}, false), pid), second);
    EXPECT_EQ(cache.full_reads(), 2u);

    // A PID no longer asked for is forgotten: asked again, it is read in full.
    EXPECT_TRUE(cache.read(roots, {}, {}, false).empty());
    EXPECT_EQ(cache.read(roots, {pid}, {}, false).size(), 1u);
    EXPECT_EQ(cache.full_reads(), 3u);

    shell.command().send_signal(SIGKILL);
    shell.command().wait();
    EXPECT_TRUE(cache.read(roots, {pid}, {}, false).empty()) << "gone is left out";
}

}  // namespace
}  // namespace gpukill::testing

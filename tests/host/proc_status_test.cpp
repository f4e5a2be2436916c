// parse_proc_status, parse_proc_cmdline and parse_exe_link on the kernel's formats.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "host/proc_parse.hpp"
#include "host_test_support.hpp"

namespace gpukill {
namespace {

using host_test::fixture;
using namespace std::string_literals;
using Args = std::vector<std::string>;

TEST(ParseProcStatus, NestedPidNamespacesHostPidFirst) {
    auto status = parse_proc_status(fixture("proc/status/nested_pidns.txt"));
    EXPECT_EQ(status.name, "python3");
    EXPECT_EQ(status.real_uid, 1000u);
    EXPECT_EQ(status.effective_uid, 1001u);
    EXPECT_EQ(status.ppid, 48190);
    EXPECT_EQ(status.nspid, (std::vector<pid_t>{48213, 212, 1}));
}

TEST(ParseProcStatus, KernelThread) {
    auto status = parse_proc_status(fixture("proc/status/kthread.txt"));
    EXPECT_EQ(status.name, "kworker/3:1H-kblockd");
    EXPECT_EQ(status.real_uid, 0u);
    EXPECT_EQ(status.ppid, 2);
    EXPECT_EQ(status.nspid, (std::vector<pid_t>{57}));
}

TEST(ParseProcStatus, OldKernelWithoutNspid) {
    auto status = parse_proc_status(fixture("proc/status/old_kernel.txt"));
    EXPECT_EQ(status.name, "nginx");
    EXPECT_EQ(status.real_uid, 33u);
    EXPECT_EQ(status.ppid, 1);
    EXPECT_TRUE(status.nspid.empty());
}

TEST(ParseProcStatus, MissingLinesStayUnknownAndEscapesAreUndone) {
    auto status = parse_proc_status(fixture("proc/status/escaped_truncated.txt"));
    EXPECT_EQ(status.name, "evil\nname");
    EXPECT_FALSE(status.real_uid);
    EXPECT_FALSE(status.effective_uid);
    EXPECT_FALSE(status.ppid);
    EXPECT_TRUE(status.nspid.empty());
}

TEST(ParseProcStatus, EmptyAndGarbage) {
    auto empty = parse_proc_status("");
    EXPECT_FALSE(empty.name);
    EXPECT_FALSE(empty.real_uid);

    auto garbage = parse_proc_status("Uid:\tabc\t\nPPid:\t-4\nNSpid:\t12\tx\n:::\n\n");
    EXPECT_FALSE(garbage.real_uid);
    EXPECT_FALSE(garbage.ppid);
    EXPECT_TRUE(garbage.nspid.empty());  // a half-readable chain is dropped whole

    auto only_real = parse_proc_status("Uid:\t42\n");
    EXPECT_EQ(only_real.real_uid, 42u);
    EXPECT_FALSE(only_real.effective_uid);
}

TEST(ParseProcStatus, LastLineWithoutNewline) {
    auto status = parse_proc_status("Name:\tx\nNSpid:\t100\t7");
    EXPECT_EQ(status.nspid, (std::vector<pid_t>{100, 7}));
}

TEST(ParseProcCmdline, NulSeparatedWithTrailingNul) {
    EXPECT_EQ(parse_proc_cmdline("python3\0train.py\0--lr\0003e-4\0"s),
              (Args{"python3", "train.py", "--lr", "3e-4"}));
}

TEST(ParseProcCmdline, WithoutTrailingNul) {
    // setproctitle-style rewrites leave one string with spaces and no terminator.
    EXPECT_EQ(parse_proc_cmdline("nginx: worker process"s), (Args{"nginx: worker process"}));
}

TEST(ParseProcCmdline, EmptyForKernelThreadsAndZombies) {
    EXPECT_TRUE(parse_proc_cmdline("").empty());
}

TEST(ParseProcCmdline, EmptyArgumentsAreKept) {
    EXPECT_EQ(parse_proc_cmdline("sh\0-c\0\0"s), (Args{"sh", "-c", ""}));
    EXPECT_EQ(parse_proc_cmdline("\0"s), (Args{""}));
    EXPECT_EQ(parse_proc_cmdline("a\0\0b\0"s), (Args{"a", "", "b"}));
}

TEST(ParseExeLink, StripsDeletedMarker) {
    auto deleted = parse_exe_link("/usr/bin/python3.11 (deleted)");
    EXPECT_EQ(deleted.path, "/usr/bin/python3.11");
    EXPECT_TRUE(deleted.deleted);

    auto live = parse_exe_link("/opt/conda/bin/python");
    EXPECT_EQ(live.path, "/opt/conda/bin/python");
    EXPECT_FALSE(live.deleted);

    // Only a suffix counts: a directory named " (deleted)" inside the path is kept.
    auto inner = parse_exe_link("/tmp/x (deleted)/bin/run");
    EXPECT_EQ(inner.path, "/tmp/x (deleted)/bin/run");
    EXPECT_FALSE(inner.deleted);
}

}  // namespace
}  // namespace gpukill

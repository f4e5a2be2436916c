// The procfs readers on real processes (this test, children it starts) and on fake
// procfs trees built from fixture text.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

#include "host/proc_reader.hpp"
#include "host_test_support.hpp"

namespace gpukill {
namespace {

using host_test::fixture;
using host_test::HoldingChild;
using host_test::make_symlink;
using host_test::TempDir;
using host_test::write_file;
using namespace std::string_literals;

// Field 22 of a stat line, found independently of the parser under test.
std::uint64_t start_time_field(const std::string& stat) {
    std::string rest = stat.substr(stat.rfind(')') + 2);
    for (int field = 3; field < 22; ++field) rest = rest.substr(rest.find(' ') + 1);
    return std::stoull(rest.substr(0, rest.find(' ')));
}

std::string read_all(const std::string& path) {
    auto text = read_text_file(path);
    if (!text) throw std::runtime_error(text.error().what);
    return *text;
}

TEST(ReadProcess, Self) {
    const pid_t self = ::getpid();
    auto info = read_process(HostRoots{}, self);
    ASSERT_TRUE(info) << info.error().what;

    EXPECT_EQ(info->pid, self);
    EXPECT_EQ(info->ppid, ::getppid());
    EXPECT_EQ(info->pgid, ::getpgrp());
    EXPECT_EQ(info->sid, ::getsid(0));
    EXPECT_EQ(info->start_time_ticks, start_time_field(read_all("/proc/self/stat")));
    EXPECT_EQ(info->identity(), (ProcessIdentity{self, info->start_time_ticks}));
    EXPECT_EQ(info->state, 'R');
    EXPECT_FALSE(info->kernel_thread);

    std::string comm = read_all("/proc/self/comm");
    comm.pop_back();  // newline
    EXPECT_EQ(info->comm, comm);

    std::vector<std::string> expected_args;
    const std::string raw = read_all("/proc/self/cmdline");
    for (std::size_t start = 0; start < raw.size();) {
        const auto nul = raw.find('\0', start);
        expected_args.push_back(raw.substr(start, nul - start));
        start = nul + 1;
    }
    EXPECT_EQ(info->cmdline, expected_args);
    ASSERT_FALSE(info->cmdline.empty());

    ASSERT_TRUE(info->uid);
    EXPECT_EQ(*info->uid, ::getuid());
    EXPECT_EQ(info->user, user_name(::getuid()));
    ASSERT_TRUE(info->exe);
    char exe[4096];
    const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe);
    ASSERT_GT(n, 0);
    EXPECT_EQ(*info->exe, std::string(exe, static_cast<std::size_t>(n)));
    EXPECT_FALSE(info->exe_deleted);
    ASSERT_FALSE(info->nspid.empty());
    // NSpid's first entry is the PID in the reader's namespace: our own PID here.
    EXPECT_EQ(info->nspid.front(), self);
}

TEST(ReadProcess, ChildOfThisTest) {
    HoldingChild child({});
    auto info = read_process(HostRoots{}, child.pid());
    ASSERT_TRUE(info) << info.error().what;
    EXPECT_EQ(info->pid, child.pid());
    EXPECT_EQ(info->ppid, ::getpid());
    // Running towards, or blocked in, the read of its pipe: which one is up to the scheduler.
    EXPECT_TRUE(info->state == 'R' || info->state == 'S') << info->state;

    auto start = read_start_time(HostRoots{}, child.pid());
    ASSERT_TRUE(start);
    EXPECT_EQ(*start, info->start_time_ticks);
}

TEST(ReadProcess, VanishedPidIsAnError) {
    const pid_t gone = host_test::reaped_child_pid();
    auto info = read_process(HostRoots{}, gone);
    ASSERT_FALSE(info);
    EXPECT_EQ(info.error().errno_value, ENOENT);
    EXPECT_NE(info.error().what.find(std::to_string(gone)), std::string::npos);

    auto start = read_start_time(HostRoots{}, gone);
    ASSERT_FALSE(start);
    EXPECT_EQ(start.error().errno_value, ENOENT);
}

TEST(ReadProcess, ZombieHasStateZAndNoCmdline) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) ::_exit(0);
    // Wait until it has exited but leave it unreaped (WNOWAIT): a zombie, no sleeping.
    siginfo_t info_wait{};
    ASSERT_EQ(::waitid(P_PID, static_cast<id_t>(pid), &info_wait, WEXITED | WNOWAIT), 0);

    auto info = read_process(HostRoots{}, pid);
    int status = 0;
    ::waitpid(pid, &status, 0);  // reap before any assertion can return

    ASSERT_TRUE(info) << info.error().what;
    EXPECT_EQ(info->state, 'Z');
    EXPECT_TRUE(info->cmdline.empty());
    EXPECT_FALSE(info->exe);  // the kernel has no exe link for a zombie
    EXPECT_FALSE(info->kernel_thread);
}

TEST(ReadProcess, KernelThread) {
    // kthreadd is PID 2 on the host; inside a PID namespace it is not visible.
    auto stat = read_text_file("/proc/2/stat");
    if (!stat || stat->find("(kthreadd)") == std::string::npos) {
        GTEST_SKIP() << "no kthreadd at PID 2 in this PID namespace";
    }
    auto info = read_process(HostRoots{}, 2);
    ASSERT_TRUE(info) << info.error().what;
    EXPECT_TRUE(info->kernel_thread);
    EXPECT_TRUE(info->cmdline.empty());
    EXPECT_FALSE(info->exe);
    EXPECT_EQ(info->ppid, 0);
}

TEST(ReadProcess, FakeProcfsTreeFromFixtures) {
    TempDir proc;
    write_file(proc / "31337/stat", fixture("proc/pid_stat/comm_paren.txt"));
    write_file(proc / "31337/status", fixture("proc/status/nested_pidns.txt"));
    write_file(proc / "31337/cmdline", "python3\0train.py\0--epochs\00010\0"s);
    write_file(proc / "31337/cgroup", fixture("proc/cgroup/v2_docker_systemd.txt"));
    make_symlink("/usr/bin/python3.11 (deleted)", proc / "31337/exe");

    HostRoots roots;
    roots.procfs = proc.path();
    auto info = read_process(roots, 31337);
    ASSERT_TRUE(info) << info.error().what;
    EXPECT_EQ(info->comm, "a) b");
    EXPECT_EQ(info->ppid, 2101);
    EXPECT_EQ(info->start_time_ticks, 4398046511104ull);
    EXPECT_EQ(info->uid, 1000u);
    EXPECT_FALSE(info->user.empty());
    EXPECT_EQ(info->nspid, (std::vector<pid_t>{48213, 212, 1}));
    EXPECT_EQ(info->cmdline, (std::vector<std::string>{"python3", "train.py", "--epochs", "10"}));
    EXPECT_EQ(info->exe, "/usr/bin/python3.11");
    EXPECT_TRUE(info->exe_deleted);
    ASSERT_TRUE(info->container);
    EXPECT_EQ(info->container->runtime, "docker");
}

TEST(ReadProcess, UnreadableOptionalFilesLeaveFieldsUnknown) {
    TempDir proc;
    write_file(proc / "77/stat", fixture("proc/pid_stat/comm_space.txt"));
    HostRoots roots;
    roots.procfs = proc.path();
    auto info = read_process(roots, 77);
    ASSERT_TRUE(info) << info.error().what;
    EXPECT_EQ(info->comm, "tmux: server");
    EXPECT_FALSE(info->uid);
    EXPECT_TRUE(info->user.empty());
    EXPECT_TRUE(info->cmdline.empty());
    EXPECT_FALSE(info->exe);
    EXPECT_FALSE(info->container);
    EXPECT_TRUE(info->nspid.empty());
}

TEST(ReadProcess, MalformedStatIsAnError) {
    TempDir proc;
    write_file(proc / "5/stat", "5 (truncated) S 1 5");
    HostRoots roots;
    roots.procfs = proc.path();
    auto info = read_process(roots, 5);
    ASSERT_FALSE(info);
    EXPECT_NE(info.error().what.find("/5/stat"), std::string::npos) << info.error().what;
    EXPECT_FALSE(read_start_time(roots, 5));
}

TEST(ListPids, RealProcfsIncludesSelfSortedNumericOnly) {
    auto pids = list_pids(HostRoots{});
    ASSERT_TRUE(pids) << pids.error().what;
    EXPECT_TRUE(std::is_sorted(pids->begin(), pids->end()));
    EXPECT_TRUE(std::binary_search(pids->begin(), pids->end(), ::getpid()));
    EXPECT_TRUE(std::all_of(pids->begin(), pids->end(), [](pid_t p) { return p > 0; }));
}

TEST(ListPids, FakeProcfsSkipsNonPidEntries) {
    TempDir proc;
    for (const char* dir : {"42", "7", "1000", "self", "sys", "0", "007", "12a", "-3"}) {
        write_file(proc / (std::string(dir) + "/stat"), "");
    }
    HostRoots roots;
    roots.procfs = proc.path();
    auto pids = list_pids(roots);
    ASSERT_TRUE(pids) << pids.error().what;
    EXPECT_EQ(*pids, (std::vector<pid_t>{7, 42, 1000}));

    roots.procfs = proc / "missing";
    auto missing = list_pids(roots);
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().errno_value, ENOENT);
}

TEST(ReadTextFile, ReadsProcFilesThatReportSizeZero) {
    auto status = read_text_file("/proc/self/status");
    ASSERT_TRUE(status) << status.error().what;
    EXPECT_NE(status->find("Name:"), std::string::npos);
    EXPECT_NE(status->find("NSpid:"), std::string::npos);  // near the end, past 1 KiB
}

TEST(ReadTextFile, LargeFileAndMissingFile) {
    TempDir dir;
    const std::string big(100000, 'x');
    write_file(dir / "big", big);
    auto text = read_text_file(dir / "big");
    ASSERT_TRUE(text);
    EXPECT_EQ(*text, big);

    auto missing = read_text_file(dir / "nope");
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().errno_value, ENOENT);
    EXPECT_NE(missing.error().what.find(dir / "nope"), std::string::npos);
}

TEST(UserName, KnownAndUnknownUids) {
    EXPECT_EQ(user_name(0), "root");
    EXPECT_EQ(user_name(3999999999u), "3999999999");
    EXPECT_EQ(user_name(0), "root");  // cached answer is the same
}

}  // namespace
}  // namespace gpukill

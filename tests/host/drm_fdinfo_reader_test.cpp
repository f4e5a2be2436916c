// Reading DRM fdinfo for the fds the sweep found: on a fake procfs tree (fixture text in
// the kernel's formats), and on a real process that made itself undumpable, whose fdinfo
// another user may not read.
#include "host/drm_fdinfo_reader.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "host/fd_sweep.hpp"
#include "host/proc_parse.hpp"
#include "host_test_support.hpp"

namespace gpukill {
namespace {

using host_test::fixture;
using host_test::TempDir;
using host_test::write_file;

// A stat line whose field 22 (start time) is `start`.
std::string stat_line(pid_t pid, std::uint64_t start) {
    return std::to_string(pid) + " (python3) S 1 " + std::to_string(pid) + " " +
           std::to_string(pid) + " 0 -1 4194304 100 0 0 0 5 3 0 0 20 0 4 0 " +
           std::to_string(start) +
           " 1000000 200 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 2 0 0 0 0 0\n";
}

DeviceHolder render_holder(pid_t pid, std::uint64_t start, std::vector<int> fds) {
    DeviceHolder holder{.pid = pid, .start_time_ticks = start};
    holder.nodes.push_back({.kind = DeviceNodeKind::dri_render,
                            .relative_path = "dri/renderD128",
                            .dri_minor = 128,
                            .pci_bus_id = "0000:03:00.0"});
    for (int fd : fds) holder.drm_fds.push_back({fd, 0});
    return holder;
}

TEST(DrmFdinfoReader, ReadsOnlyTheHoldersDrmFdsAndKeepsDrmClients) {
    TempDir dir;
    const std::string proc = dir / "proc";
    write_file(proc + "/4242/stat", stat_line(4242, 777));
    write_file(proc + "/4242/fdinfo/5", fixture("proc/fdinfo/amdgpu_6x.txt"));
    write_file(proc + "/4242/fdinfo/6", fixture("proc/fdinfo/regular_file.txt"));
    write_file(proc + "/4242/fdinfo/7", fixture("proc/fdinfo/amdgpu_6x.txt"));  // a dup
    write_file(proc + "/4242/fdinfo/8", fixture("proc/fdinfo/xe.txt"));         // not in drm_fds
    HostRoots roots{.procfs = proc};
    // fd 9 was closed since the sweep: no fdinfo.
    DrmFdinfoReading reading = read_drm_fdinfo(roots, {render_holder(4242, 777, {5, 6, 7, 9})});
    EXPECT_TRUE(reading.denied.empty());
    ASSERT_EQ(reading.samples.size(), 2u);
    EXPECT_EQ(reading.samples[0].pid, 4242);
    EXPECT_EQ(reading.samples[0].fd, 5);
    EXPECT_EQ(reading.samples[1].fd, 7);
    EXPECT_EQ(reading.samples[0].client.driver, "amdgpu");
    EXPECT_EQ(reading.samples[0].client.client_id, 49u);
    EXPECT_EQ(reading.samples[0].node_pci_bus_id, "0000:03:00.0");
    EXPECT_GT(reading.samples[0].monotonic_ns, 0);
    EXPECT_LE(reading.samples[0].monotonic_ns, reading.samples[1].monotonic_ns);
}

TEST(DrmFdinfoReader, AReusedPidIsNotReadAsTheHolder) {
    TempDir dir;
    const std::string proc = dir / "proc";
    write_file(proc + "/4242/stat", stat_line(4242, 900));  // started later: another process
    write_file(proc + "/4242/fdinfo/5", fixture("proc/fdinfo/amdgpu_6x.txt"));
    HostRoots roots{.procfs = proc};
    DrmFdinfoReading reading = read_drm_fdinfo(roots, {render_holder(4242, 777, {5})});
    EXPECT_TRUE(reading.samples.empty());
    EXPECT_TRUE(reading.denied.empty());
}

TEST(DrmFdinfoReader, HoldersWithoutDrmFdsAndVanishedProcessesCostNothing) {
    TempDir dir;
    HostRoots roots{.procfs = dir / "proc"};
    DeviceHolder nvidia_only{.pid = 1234, .start_time_ticks = 5};
    nvidia_only.nodes.push_back({.kind = DeviceNodeKind::nvidia_gpu, .relative_path = "nvidia0"});
    DrmFdinfoReading reading = read_drm_fdinfo(roots, {nvidia_only, render_holder(4243, 1, {3})});
    EXPECT_TRUE(reading.samples.empty());
    EXPECT_TRUE(reading.denied.empty());
}

// The sweep finds the fds: a real process holding a render node twice (open + dup).
TEST(DrmFdinfoReader, TheSweepRecordsEveryFdOnADrmNode) {
    TempDir dir;
    const std::string dev = dir / "dev";
    write_file(dev + "/dri/renderD128", "");
    write_file(dev + "/nvidia0", "");
    host_test::HoldingChild child(
        {dev + "/dri/renderD128", dev + "/dri/renderD128", dev + "/nvidia0"});
    HostRoots roots{.sysfs = dir / "sys", .devfs = dev};
    SweepResult sweep = sweep_device_holders(roots);
    const DeviceHolder* holder = nullptr;
    for (const auto& h : sweep.holders) {
        if (h.pid == child.pid()) holder = &h;
    }
    ASSERT_NE(holder, nullptr);
    ASSERT_EQ(holder->nodes.size(), 2u);
    ASSERT_EQ(holder->drm_fds.size(), 2u);  // two fds, one node; nvidia0 is not DRM
    EXPECT_NE(holder->drm_fds[0].fd, holder->drm_fds[1].fd);
    for (const DrmFd& fd : holder->drm_fds) {
        EXPECT_EQ(holder->nodes[fd.node_index].relative_path, "dri/renderD128");
    }
    // Regular files: their fdinfo is not a DRM client's.
    DrmFdinfoReading reading = read_drm_fdinfo(roots, sweep.holders);
    for (const auto& s : reading.samples) EXPECT_NE(s.pid, child.pid());
}

// Runs fn in a child as `uid` and returns its exit status (fn's return value).
template <class Fn>
int as_user(uid_t uid, Fn fn) {
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        if (::setresgid(uid, uid, uid) != 0 || ::setresuid(uid, uid, uid) != 0) ::_exit(90);
        ::_exit(fn());
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(DrmFdinfoReader, AnUndumpableProcessesUsageIsDeniedNotAnError) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to run both sides as another user";
    constexpr uid_t kNobody = 65534;
    int ready[2];
    int block[2];
    ASSERT_EQ(::pipe2(ready, O_CLOEXEC), 0);
    ASSERT_EQ(::pipe2(block, O_CLOEXEC), 0);
    const pid_t target = ::fork();
    ASSERT_GE(target, 0);
    if (target == 0) {
        // A process of user nobody that opens a file and then makes itself undumpable:
        // its /proc/PID/fd and fdinfo become root's, even to nobody's own processes.
        ::close(ready[0]);
        ::close(block[1]);
        if (::setresgid(kNobody, kNobody, kNobody) != 0 ||
            ::setresuid(kNobody, kNobody, kNobody) != 0) {
            ::_exit(2);
        }
        const int fd = ::open("/dev/null", O_RDONLY);
        if (fd < 0 || ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) ::_exit(3);
        char byte = static_cast<char>(fd);
        if (::write(ready[1], &byte, 1) != 1) ::_exit(4);
        while (::read(block[0], &byte, 1) != 0) {
        }
        ::_exit(0);
    }
    ::close(ready[1]);
    ::close(block[0]);
    char fd_byte = 0;
    ASSERT_EQ(::read(ready[0], &fd_byte, 1), 1);
    ::close(ready[0]);
    std::ifstream stat_file("/proc/" + std::to_string(target) + "/stat");
    std::string stat_text((std::istreambuf_iterator<char>(stat_file)),
                          std::istreambuf_iterator<char>());
    auto stat = parse_proc_stat(stat_text);
    ASSERT_TRUE(stat.has_value());
    const DeviceHolder holder =
        render_holder(target, stat->start_time_ticks, {static_cast<int>(fd_byte)});

    const int status = as_user(kNobody, [&] {
        DrmFdinfoReading reading = read_drm_fdinfo(HostRoots{}, {holder});
        return reading.denied.size() == 1 && reading.denied[0] == target && reading.samples.empty()
                   ? 0
                   : 1;
    });
    ::close(block[1]);  // lets the target exit
    int target_status = 0;
    while (::waitpid(target, &target_status, 0) < 0 && errno == EINTR) {
    }
    EXPECT_EQ(status, 0) << "the undumpable process's fdinfo was not reported as denied";
    EXPECT_TRUE(WIFEXITED(target_status) && WEXITSTATUS(target_status) == 0);
}

}  // namespace
}  // namespace gpukill

// The fd sweep on real processes this test starts (holding fake device files under a
// temporary devfs root) and on fake procfs trees whose fd links are plain symlinks.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fstream>

#include <algorithm>
#include <string>
#include <vector>

#include "host/drm_pci.hpp"
#include "host/fd_sweep.hpp"
#include "host_test_support.hpp"

namespace gpukill {
namespace {

using host_test::holder_of;
using host_test::HoldingChild;
using host_test::make_symlink;
using host_test::TempDir;
using host_test::write_file;

std::vector<std::string> relative_paths(const DeviceHolder& holder) {
    std::vector<std::string> paths;
    for (const auto& node : holder.nodes) paths.push_back(node.relative_path);
    std::sort(paths.begin(), paths.end());
    return paths;
}

// A temporary devfs root with fake GPU nodes (regular files: open() is all that matters).
struct FakeDevfs {
    TempDir dir;
    std::string root = dir / "dev";
    FakeDevfs() {
        for (const char* node : {"nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm", "dri/card0",
                                 "dri/renderD128", "null", "kfd"}) {
            write_file(root + "/" + node, "");
        }
    }
    std::string operator/(std::string_view node) const { return root + "/" + std::string(node); }
};

// sysfs with DRM nodes laid out as the kernel does: class/drm/<name> links into
// /sys/devices, and <name>/device links up to the PCI function.
void make_drm_sysfs(const std::string& sys) {
    const std::string gpu = sys + "/devices/pci0000:00/0000:00:01.0/0000:03:00.0";
    std::filesystem::create_directories(gpu + "/drm/card0");
    std::filesystem::create_directories(gpu + "/drm/renderD128");
    make_symlink("../../devices/pci0000:00/0000:00:01.0/0000:03:00.0/drm/card0",
                 sys + "/class/drm/card0");
    make_symlink("../../../0000:03:00.0", gpu + "/drm/card0/device");
    // The simpler layout: a class directory whose device link climbs to /sys/devices.
    std::filesystem::create_directories(sys + "/class/drm/renderD128");
    make_symlink("../../../devices/pci0000:00/0000:00:01.0/0000:03:00.0",
                 sys + "/class/drm/renderD128/device");
    // virtio-gpu: the parent is a virtio device whose ancestor is the PCI function.
    const std::string virtio = sys + "/devices/pci0000:00/0000:00:02.0/virtio0";
    std::filesystem::create_directories(virtio + "/drm/card1");
    make_symlink("../../devices/pci0000:00/0000:00:02.0/virtio0/drm/card1",
                 sys + "/class/drm/card1");
    make_symlink("../../../virtio0", virtio + "/drm/card1/device");
    // An SoC GPU on the platform bus: no PCI address.
    std::filesystem::create_directories(sys + "/devices/platform/gpu/drm/card2");
    make_symlink("../../devices/platform/gpu/drm/card2", sys + "/class/drm/card2");
    make_symlink("../../../gpu", sys + "/devices/platform/gpu/drm/card2/device");
}

TEST(FdSweep, FindsChildHoldingFakeNodesAndNotThisProcess) {
    FakeDevfs dev;
    HoldingChild child(
        {dev / "nvidia0", dev / "nvidia0", dev / "dri/renderD128", dev / "null", "/dev/null"});
    HoldingChild bystander({"/dev/null"});

    HostRoots roots;
    roots.devfs = dev.root;
    roots.sysfs = dev.dir / "no-sys";
    const auto result = sweep_device_holders(roots);
    ASSERT_FALSE(result.error) << result.error->what;

    const auto* holder = holder_of(result, child.pid());
    ASSERT_NE(holder, nullptr);
    // Each node once, however many fds; "null" is not a GPU node.
    EXPECT_EQ(relative_paths(*holder), (std::vector<std::string>{"dri/renderD128", "nvidia0"}));
    for (const auto& node : holder->nodes) {
        if (node.relative_path == "nvidia0") {
            EXPECT_EQ(node.kind, DeviceNodeKind::nvidia_gpu);
            EXPECT_EQ(node.nvidia_minor, 0u);
        } else {
            EXPECT_EQ(node.kind, DeviceNodeKind::dri_render);
            EXPECT_EQ(node.dri_minor, 128u);
            EXPECT_FALSE(node.pci_bus_id);  // no sysfs for it
        }
    }
    EXPECT_EQ(holder_of(result, ::getpid()), nullptr);
    EXPECT_EQ(holder_of(result, bystander.pid()), nullptr);
    EXPECT_GE(result.processes_scanned, 3u);
    EXPECT_TRUE(std::is_sorted(result.holders.begin(), result.holders.end(),
                               [](const auto& a, const auto& b) { return a.pid < b.pid; }));
}

TEST(FdSweep, SeveralHoldersAndThisProcessWhenItHoldsANode) {
    FakeDevfs dev;
    HoldingChild first({dev / "nvidiactl", dev / "nvidia-uvm", dev / "nvidia1"});
    HoldingChild second({dev / "kfd"});
    const int own = ::open((dev / "dri/card0").c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(own, 0);

    HostRoots roots;
    roots.devfs = dev.root + "//";  // sloppy spelling: canonicalised by the sweep
    roots.sysfs = dev.dir / "sys";
    make_drm_sysfs(roots.sysfs);
    const auto result = sweep_device_holders(roots);
    ::close(own);

    const auto* a = holder_of(result, first.pid());
    const auto* b = holder_of(result, second.pid());
    const auto* self = holder_of(result, ::getpid());
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    ASSERT_NE(self, nullptr);
    EXPECT_EQ(relative_paths(*a), (std::vector<std::string>{"nvidia-uvm", "nvidia1", "nvidiactl"}));
    EXPECT_EQ(relative_paths(*b), (std::vector<std::string>{"kfd"}));
    ASSERT_EQ(self->nodes.size(), 1u);
    EXPECT_EQ(self->nodes[0].kind, DeviceNodeKind::dri_card);
    EXPECT_EQ(self->nodes[0].pci_bus_id, "0000:03:00.0");
}

TEST(FdSweep, DevfsRootGivenThroughASymlinkIsCanonicalised) {
    FakeDevfs dev;
    const std::string alias = dev.dir / "devlink";
    std::filesystem::create_directory_symlink(dev.root, alias);
    HoldingChild child({alias + "/nvidia1"});  // the kernel prints the resolved path

    HostRoots roots;
    roots.devfs = alias;
    const auto result = sweep_device_holders(roots);
    const auto* holder = holder_of(result, child.pid());
    ASSERT_NE(holder, nullptr);
    EXPECT_EQ(relative_paths(*holder), (std::vector<std::string>{"nvidia1"}));
}

TEST(FdSweep, NodeUnlinkedWhileOpenStillCounts) {
    FakeDevfs dev;
    HoldingChild child({dev / "nvidia1"});
    ASSERT_EQ(::unlink((dev / "nvidia1").c_str()), 0);  // its fd link now ends " (deleted)"

    HostRoots roots;
    roots.devfs = dev.root;
    const auto result = sweep_device_holders(roots);
    const auto* holder = holder_of(result, child.pid());
    ASSERT_NE(holder, nullptr);
    ASSERT_EQ(holder->nodes.size(), 1u);
    EXPECT_EQ(holder->nodes[0].relative_path, "nvidia1");
    EXPECT_EQ(holder->nodes[0].nvidia_minor, 1u);
}

TEST(FdSweep, RealDevIsNotMatchedUnderRelocatedRoot) {
    FakeDevfs dev;
    HostRoots roots;
    roots.devfs = dev.root;
    const auto result = sweep_device_holders(roots);
    ASSERT_FALSE(result.error);
    // Nobody holds the fake nodes; whatever holds the real /dev/nvidia* is not reported.
    EXPECT_TRUE(result.holders.empty());
}

TEST(FdSweep, DeniedProcessesAreCountedNotSeen) {
    if (::geteuid() != 0) {
        // Unprivileged already: other users' processes (init, if not ours) are denied.
        struct stat init {};
        if (::stat("/proc/1", &init) != 0 || init.st_uid == ::geteuid()) {
            GTEST_SKIP() << "no process of another user to be denied";
        }
        const auto result = sweep_device_holders(HostRoots{});
        EXPECT_GE(result.processes_denied, 1u);
        return;
    }
    FakeDevfs dev;
    HoldingChild root_holder({dev / "nvidia0"});

    // A child that drops to nobody and sweeps; it reports through a pipe.
    struct Report {
        std::size_t scanned, denied, vanished;
        bool saw_holder, failed;
    };
    int pipe_fds[2];
    ASSERT_EQ(::pipe(pipe_fds), 0);
    const pid_t sweeper = ::fork();
    ASSERT_GE(sweeper, 0);
    if (sweeper == 0) {
        ::close(pipe_fds[0]);
        Report report{};
        if (::setgid(65534) != 0 || ::setuid(65534) != 0) {
            report.failed = true;
        } else {
            HostRoots roots;
            roots.devfs = dev.root;
            const auto result = sweep_device_holders(roots);
            report = {result.processes_scanned, result.processes_denied, result.processes_vanished,
                      holder_of(result, root_holder.pid()) != nullptr, result.error.has_value()};
        }
        const bool ok = ::write(pipe_fds[1], &report, sizeof report) == sizeof report;
        ::_exit(ok ? 0 : 1);
    }
    ::close(pipe_fds[1]);
    Report report{};
    const ssize_t n = ::read(pipe_fds[0], &report, sizeof report);
    ::close(pipe_fds[0]);
    int status = 0;
    ::waitpid(sweeper, &status, 0);

    ASSERT_EQ(n, static_cast<ssize_t>(sizeof report));
    ASSERT_FALSE(report.failed);
    EXPECT_GE(report.denied, 2u);  // at least this test and the root-owned holder
    EXPECT_FALSE(report.saw_holder);
    EXPECT_GE(report.scanned, report.denied + report.vanished);
}

TEST(FdSweep, FakeProcfsTree) {
    TempDir tmp;
    const std::string proc = tmp / "proc";
    const std::string dev = "/srv/gpu/dev";  // need not exist: links are only text here
    make_symlink(dev + "/nvidia0", proc + "/500/fd/3");
    make_symlink(dev + "/nvidia0", proc + "/500/fd/4");
    make_symlink("socket:[81724]", proc + "/500/fd/5");
    make_symlink(dev + "/nvidiactl", proc + "/500/fd/6");
    make_symlink("/dev/null", proc + "/100/fd/0");
    make_symlink(dev + "/dri/renderD128", proc + "/100/fd/1");
    make_symlink(dev + "/dri/card1", proc + "/100/fd/2");
    make_symlink(dev + "/dri/card2", proc + "/100/fd/7");
    make_symlink(dev + "/nvidia1 (deleted)", proc + "/200/fd/9");
    // The holder's own /dev path while the root is elsewhere (relocated_devfs_test.cpp).
    make_symlink("/dev/nvidia0", proc + "/250/fd/1");
    std::filesystem::create_directories(proc + "/300");  // exited: no fd directory
    std::filesystem::create_directories(proc + "/self/fd");
    std::filesystem::create_directories(proc + "/sys/fd");
    std::filesystem::create_directories(proc + "/0123/fd");
    make_symlink(dev + "/nvidia0", proc + "/0123/fd/1");  // not a PID name: ignored
    // Holders' start times are read beside their fd directories.
    for (const char* pid : {"100", "200", "250", "500"}) {
        std::ofstream(proc + "/" + pid + "/stat")
            << pid << " (fake) S 1 " << pid << " " << pid
            << " 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 " << pid << "77 0 0\n";
    }

    HostRoots roots;
    roots.procfs = proc;
    roots.devfs = dev;
    roots.sysfs = tmp / "sys";
    make_drm_sysfs(roots.sysfs);
    const auto result = sweep_device_holders(roots);
    ASSERT_FALSE(result.error) << result.error->what;

    EXPECT_EQ(result.processes_scanned, 5u);  // 100, 200, 250, 300, 500
    EXPECT_EQ(result.processes_vanished, 1u);
    EXPECT_EQ(result.processes_denied, 0u);
    ASSERT_EQ(result.holders.size(), 4u);
    EXPECT_EQ(result.holders[0].start_time_ticks, 10077u);

    // Within a holder, nodes keep the order the fd directory lists them in, which the
    // filesystem chooses: look them up by name.
    auto node = [](const DeviceHolder& holder, std::string_view path) -> const DeviceNode& {
        auto it = std::find_if(holder.nodes.begin(), holder.nodes.end(),
                               [&](const DeviceNode& n) { return n.relative_path == path; });
        if (it == holder.nodes.end()) throw std::runtime_error("no node " + std::string(path));
        return *it;
    };
    EXPECT_EQ(result.holders[0].pid, 100);
    EXPECT_EQ(relative_paths(result.holders[0]),
              (std::vector<std::string>{"dri/card1", "dri/card2", "dri/renderD128"}));
    EXPECT_EQ(node(result.holders[0], "dri/renderD128").pci_bus_id, "0000:03:00.0");
    EXPECT_EQ(node(result.holders[0], "dri/card1").pci_bus_id, "0000:00:02.0");  // virtio
    EXPECT_FALSE(node(result.holders[0], "dri/card2").pci_bus_id);               // platform

    EXPECT_EQ(result.holders[1].pid, 200);
    EXPECT_EQ(relative_paths(result.holders[1]), (std::vector<std::string>{"nvidia1"}));

    EXPECT_EQ(result.holders[2].pid, 250);
    EXPECT_EQ(relative_paths(result.holders[2]), (std::vector<std::string>{"nvidia0"}));

    EXPECT_EQ(result.holders[3].pid, 500);
    EXPECT_EQ(relative_paths(result.holders[3]),
              (std::vector<std::string>{"nvidia0", "nvidiactl"}));
    EXPECT_EQ(node(result.holders[3], "nvidia0").nvidia_minor, 0u);
}

TEST(FdSweep, UnreadableProcfsIsReported) {
    HostRoots roots;
    roots.procfs = "/nonexistent/gpukill/proc";
    const auto result = sweep_device_holders(roots);
    ASSERT_TRUE(result.error);
    EXPECT_EQ(result.error->errno_value, ENOENT);
    EXPECT_TRUE(result.holders.empty());
}

TEST(ResolveDrmPciBusId, FromSysfsLayouts) {
    TempDir tmp;
    HostRoots roots;
    roots.sysfs = tmp / "sys";
    make_drm_sysfs(roots.sysfs);
    EXPECT_EQ(resolve_drm_pci_bus_id(roots, "card0"), "0000:03:00.0");
    EXPECT_EQ(resolve_drm_pci_bus_id(roots, "renderD128"), "0000:03:00.0");
    EXPECT_EQ(resolve_drm_pci_bus_id(roots, "card1"), "0000:00:02.0");
    EXPECT_FALSE(resolve_drm_pci_bus_id(roots, "card2"));
    EXPECT_FALSE(resolve_drm_pci_bus_id(roots, "card9"));
    EXPECT_FALSE(resolve_drm_pci_bus_id(roots, "../card0"));
    EXPECT_FALSE(resolve_drm_pci_bus_id(roots, ""));
}

}  // namespace
}  // namespace gpukill

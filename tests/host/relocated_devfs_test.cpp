// A device root mounted somewhere else (a DaemonSet with the host's /dev at /host/dev):
// holders' fd links still say /dev/..., the path in their own mount namespace. The sweep
// matches such a link by the file behind it, and by its text only when that file cannot
// be looked at (a procfs fixture, as a container reader of another namespace sees it).
#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "host/devfs_nodes.hpp"
#include "host/fd_sweep.hpp"
#include "host_test_support.hpp"

namespace gpukill {
namespace {

using host_test::holder_of;
using host_test::make_symlink;
using host_test::NamespacedChild;
using host_test::TempDir;
using host_test::write_file;

void write_fixture_stat(const std::string& proc, const char* pid) {
    std::ofstream(proc + "/" + pid + "/stat")
        << pid << " (python) S 1 " << pid << " " << pid << " 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 "
        << pid << "55 0 0\n";
}

TEST(RelocatedDevfs, ListsTheRootsGpuNodesWithTheirIdentity) {
    TempDir tmp;
    for (const char* node : {"nvidia0", "nvidiactl", "dri/renderD128", "null", "sda"}) {
        write_file(tmp / (std::string("dev/") + node), "");
    }
    auto nodes = list_gpu_device_nodes(tmp / "dev");
    std::vector<std::string> paths;
    for (const DevfsNode& node : nodes) {
        paths.push_back(node.node.relative_path);
        EXPECT_TRUE(node.identity) << node.path;
    }
    std::sort(paths.begin(), paths.end());
    EXPECT_EQ(paths, (std::vector<std::string>{"dri/renderD128", "nvidia0", "nvidiactl"}));
}

// The fixture shows what a reader in a container sees of host processes: links whose
// text is the holder's /dev path, pointing at nothing that exists here.
TEST(RelocatedDevfs, HolderLinksInTheirOwnNamespaceNameNodesUnderTheRoot) {
    TempDir tmp;
    const std::string proc = tmp / "proc";
    const std::string host_dev = tmp / "host/dev";
    for (const char* node : {"nvidia0", "nvidia1", "nvidiactl", "dri/renderD128"}) {
        write_file(host_dev + "/" + node, "");
    }
    make_symlink("/dev/nvidia1", proc + "/700/fd/3");
    make_symlink("/dev/nvidiactl", proc + "/700/fd/4");
    make_symlink("socket:[99]", proc + "/700/fd/5");
    make_symlink("/dev/dri/renderD128", proc + "/701/fd/9");
    make_symlink("/dev/null", proc + "/702/fd/0");      // a real /dev file, no GPU node
    make_symlink("/dev/sda", proc + "/703/fd/0");       // no such file here, not a GPU name
    make_symlink("/devx/nvidia0", proc + "/704/fd/0");  // not /dev/
    for (const char* pid : {"700", "701", "702", "703", "704"}) write_fixture_stat(proc, pid);

    HostRoots roots;
    roots.procfs = proc;
    roots.devfs = host_dev;
    roots.sysfs = tmp / "sys";
    const SweepResult result = sweep_device_holders(roots);
    ASSERT_FALSE(result.error) << result.error->what;
    ASSERT_EQ(result.holders.size(), 2u);
    const DeviceHolder* trainer = holder_of(result, 700);
    ASSERT_NE(trainer, nullptr);
    std::vector<std::string> held;
    for (const auto& node : trainer->nodes) held.push_back(node.relative_path);
    std::sort(held.begin(), held.end());
    EXPECT_EQ(held, (std::vector<std::string>{"nvidia1", "nvidiactl"}));
    EXPECT_EQ(trainer->start_time_ticks, 70055u);
    const DeviceHolder* renderer = holder_of(result, 701);
    ASSERT_NE(renderer, nullptr);
    ASSERT_EQ(renderer->nodes.size(), 1u);
    EXPECT_EQ(renderer->nodes[0].kind, DeviceNodeKind::dri_render);
    EXPECT_EQ(renderer->nodes[0].dri_minor, 128u);
}

// A real holder in its own mount namespace, whose /dev/nvidia0 is in fact the root's
// nvidia1 (bind-mounted): the file behind the fd decides, not the link's text. Its
// /dev/gpu-alias is the root's nvidia0 under a name no driver's library opens: like a
// link on a host root, it is not taken for a GPU node (only GPU names are examined).
TEST(RelocatedDevfs, TheFileBehindTheFdDecidesOverItsLinkText) {
    TempDir tmp;
    const std::string dev = tmp / "dev";
    for (const char* node : {"nvidia0", "nvidia1", "nvidiactl"}) write_file(dev + "/" + node, "");

    const std::string nvidia0 = dev + "/nvidia0";
    auto child = NamespacedChild::start(dev, [&] {
        const int alias = ::open("/dev/gpu-alias", O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
        if (alias >= 0) ::close(alias);
        return ::mount(nvidia0.c_str(), "/dev/gpu-alias", nullptr, MS_BIND, nullptr) == 0 &&
               ::open("/dev/gpu-alias", O_RDONLY) >= 0 && ::open("/dev/nvidia0", O_RDONLY) >= 0;
    });
    if (!child) GTEST_SKIP() << "cannot make a mount namespace here (needs CAP_SYS_ADMIN)";
    const pid_t pid = child->pid();

    HostRoots roots;
    roots.devfs = dev;
    roots.sysfs = tmp / "no-sys";
    const SweepResult result = sweep_device_holders_of(roots, {pid});
    child->stop();
    const DeviceHolder* holder = holder_of(result, pid);
    ASSERT_NE(holder, nullptr) << "the namespaced holder was missed";
    ASSERT_EQ(holder->nodes.size(), 1u);
    EXPECT_EQ(holder->nodes[0].relative_path, "nvidia1");
    EXPECT_EQ(holder->nodes[0].nvidia_minor, 1u);
}

}  // namespace
}  // namespace gpukill

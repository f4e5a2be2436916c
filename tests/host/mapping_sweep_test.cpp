// Holders by a mapping alone: a process that maps a GPU device node and closes the
// descriptor (and every child it forks after that) holds the device, as fuser's access `m`
// says. The sweep reads /proc/PID/maps beside the fds: on real processes this test starts,
// and on procfs fixtures whose maps files are the kernel's text.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "host/fd_sweep.hpp"
#include "host_test_support.hpp"

namespace gpukill {
namespace {

using host_test::holder_of;
using host_test::make_symlink;
using host_test::NamespacedChild;
using host_test::TempDir;
using host_test::write_file;

// "nvidia0:m", "nvidiactl:fm": each node and how it is held, sorted.
std::vector<std::string> held_as(const DeviceHolder& holder) {
    std::vector<std::string> held;
    for (const DeviceNode& node : holder.nodes) {
        held.push_back(node.relative_path + ":" + (node.access.descriptor ? "f" : "") +
                       (node.access.mapping ? "m" : ""));
    }
    std::sort(held.begin(), held.end());
    return held;
}

// A child that maps each of `mapped` (MAP_SHARED, as the CUDA runtime maps device nodes)
// and closes the descriptor, opens each of `opened` and keeps it, then forks one worker
// (which inherits the mappings and nothing was open for it to inherit of `mapped`), and
// blocks until the guard goes. The constructor returns when both are ready.
class MappingChild {
  public:
    MappingChild(const std::vector<std::string>& mapped, const std::vector<std::string>& opened) {
        std::vector<const char*> c_mapped;
        std::vector<const char*> c_opened;
        for (const auto& p : mapped) c_mapped.push_back(p.c_str());
        for (const auto& p : opened) c_opened.push_back(p.c_str());
        int ready[2];
        int block[2];
        if (::pipe2(ready, O_CLOEXEC) != 0 || ::pipe2(block, O_CLOEXEC) != 0) {
            throw std::runtime_error("pipe failed");
        }
        pid_ = ::fork();
        if (pid_ < 0) throw std::runtime_error("fork failed");
        if (pid_ == 0) {
            ::close(ready[0]);
            ::close(block[1]);
            for (const char* p : c_mapped) {
                const int fd = ::open(p, O_RDWR);
                if (fd < 0) ::_exit(2);
                if (::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) ==
                    MAP_FAILED) {
                    ::_exit(3);
                }
                ::close(fd);
            }
            for (const char* p : c_opened) {
                if (::open(p, O_RDONLY) < 0) ::_exit(4);
            }
            const pid_t worker = ::fork();
            if (worker < 0) ::_exit(5);
            char byte;
            if (worker == 0) {
                while (::read(block[0], &byte, 1) != 0) {
                }
                ::_exit(0);
            }
            if (::write(ready[1], &worker, sizeof worker) != sizeof worker) ::_exit(6);
            while (::read(block[0], &byte, 1) != 0) {
            }
            ::kill(worker, SIGKILL);  // its own child
            ::waitpid(worker, nullptr, 0);
            ::_exit(0);
        }
        ::close(ready[1]);
        ::close(block[0]);
        block_write_ = block[1];
        const ssize_t n = ::read(ready[0], &worker_, sizeof worker_);
        ::close(ready[0]);
        if (n != sizeof worker_) {
            reap();
            throw std::runtime_error("child could not map its files");
        }
    }
    ~MappingChild() { reap(); }
    MappingChild(const MappingChild&) = delete;
    MappingChild& operator=(const MappingChild&) = delete;

    pid_t pid() const { return pid_; }
    pid_t worker() const { return worker_; }

  private:
    void reap() {
        if (block_write_ >= 0) ::close(block_write_);  // the worker sees EOF and exits
        block_write_ = -1;
        if (pid_ > 0) {
            int status = 0;
            while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
            }
            pid_ = -1;
        }
    }

    pid_t pid_ = -1;
    pid_t worker_ = -1;
    int block_write_ = -1;
};

struct MappedDevfs {
    TempDir dir;
    std::string root = dir / "dev";
    MappedDevfs() {
        for (const char* node : {"nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm", "null"}) {
            write_file(root + "/" + node, "");
        }
    }
    std::string operator/(std::string_view node) const { return root + "/" + std::string(node); }
};

TEST(MappingSweep, AMappingAloneHoldsTheNodeAndForkCopiesIt) {
    MappedDevfs dev;
    MappingChild child({dev / "nvidia0", dev / "nvidiactl", dev / "null"}, {});
    HostRoots roots;
    roots.devfs = dev.root;
    roots.sysfs = dev.dir / "no-sys";

    const SweepResult all = sweep_device_holders(roots);
    ASSERT_FALSE(all.error) << all.error->what;
    for (pid_t pid : {child.pid(), child.worker()}) {
        const DeviceHolder* holder = holder_of(all, pid);
        ASSERT_NE(holder, nullptr) << pid << " holds the GPU by its mapping alone";
        EXPECT_EQ(held_as(*holder), (std::vector<std::string>{"nvidia0:m", "nvidiactl:m"}));
        EXPECT_TRUE(holder->start_time_ticks);
        EXPECT_TRUE(holder->drm_fds.empty());
    }
    // A kill of named PIDs reads them alone, mappings included.
    const SweepResult named = sweep_device_holders_of(roots, {child.worker()});
    ASSERT_EQ(named.holders.size(), 1u);
    EXPECT_EQ(named.holders[0].pid, child.worker());
    EXPECT_EQ(held_as(named.holders[0]), (std::vector<std::string>{"nvidia0:m", "nvidiactl:m"}));
}

TEST(MappingSweep, ANodeBothOpenAndMappedIsBothAndAnOpenOneOnlyOpen) {
    MappedDevfs dev;
    MappingChild child({dev / "nvidia0"}, {dev / "nvidia0", dev / "nvidia1"});
    HostRoots roots;
    roots.devfs = dev.root;
    const SweepResult result = sweep_device_holders_of(roots, {child.pid(), child.worker()});
    const DeviceHolder* parent = holder_of(result, child.pid());
    ASSERT_NE(parent, nullptr);
    EXPECT_EQ(held_as(*parent), (std::vector<std::string>{"nvidia0:fm", "nvidia1:f"}));
    const DeviceHolder* worker = holder_of(result, child.worker());
    ASSERT_NE(worker, nullptr);
    EXPECT_EQ(held_as(*worker), (std::vector<std::string>{"nvidia0:fm", "nvidia1:f"}));
}

TEST(MappingSweep, MappingsOfOtherFilesHoldNothing) {
    MappedDevfs dev;
    // /dev/null under the root is no GPU node; this binary and its libraries are mapped too.
    MappingChild child({dev / "null"}, {});
    HostRoots roots;
    roots.devfs = dev.root;
    const SweepResult result = sweep_device_holders(roots);
    EXPECT_EQ(holder_of(result, child.pid()), nullptr);
    EXPECT_EQ(holder_of(result, child.worker()), nullptr);
}

void write_stat(const std::string& proc, const std::string& pid) {
    std::ofstream(proc + "/" + pid + "/stat")
        << pid << " (python) S 1 " << pid << " " << pid << " 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 "
        << pid << "33 0 0\n";
}

// A process directory of a fixture procfs: stat, an executable, `fds` fd links, and maps.
void fixture_process(const std::string& proc, const std::string& pid, const std::string& maps,
                     bool executable = true) {
    std::filesystem::create_directories(proc + "/" + pid + "/fd");
    write_stat(proc, pid);
    if (executable) make_symlink("/usr/bin/python3.11", proc + "/" + pid + "/exe");
    write_file(proc + "/" + pid + "/maps", maps);
}

TEST(MappingSweep, ACudaProcessesMapsOnAHostRoot) {
    TempDir tmp;
    const std::string proc = tmp / "proc";
    fixture_process(proc, "600", host_test::fixture("proc/maps/cuda_devtmpfs.txt"));
    make_symlink("socket:[4242]", proc + "/600/fd/3");
    make_symlink("/dev/nvidiactl", proc + "/600/fd/4");
    // No fds and no executable: a kernel thread. Its maps (there are none on a real
    // host) are not read.
    fixture_process(proc, "2", host_test::fixture("proc/maps/cuda_devtmpfs.txt"), false);
    // No fds but an executable: a process that closed everything and kept its mappings.
    fixture_process(proc, "650", host_test::fixture("proc/maps/cuda_devtmpfs.txt"));

    HostRoots roots;
    roots.procfs = proc;
    roots.devfs = "/dev";
    roots.sysfs = tmp / "no-sys";
    const SweepResult result = sweep_device_holders(roots);
    ASSERT_FALSE(result.error) << result.error->what;
    EXPECT_EQ(holder_of(result, 2), nullptr);
    const DeviceHolder* trainer = holder_of(result, 600);
    ASSERT_NE(trainer, nullptr);
    EXPECT_EQ(trainer->start_time_ticks, 60033u);
    EXPECT_EQ(held_as(*trainer),
              (std::vector<std::string>{"dri/renderD128:m", "nvidia-caps/nvidia-cap1:m",
                                        "nvidia-uvm:m", "nvidia0:m", "nvidia1:m", "nvidiactl:fm"}));
    // The descriptor's node first, then the mappings in address order.
    EXPECT_EQ(trainer->nodes.front().relative_path, "nvidiactl");
    const DeviceHolder* closer = holder_of(result, 650);
    ASSERT_NE(closer, nullptr);
    EXPECT_EQ(closer->nodes.size(), 6u);
    EXPECT_EQ(result.holders.size(), 2u);
}

TEST(MappingSweep, LinesAcrossReadsAndALineLongerThanTheBufferAreHandled) {
    TempDir tmp;
    const std::string proc = tmp / "proc";
    std::string maps;
    const std::string library =
        "7f21d4a7c000-7f21d4a9e000 r--p 00000000 103:02 1838810                    "
        "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15\n";
    for (int i = 0; i < 600; ++i) maps += library;  // about 80 KiB: many reads' worth
    maps +=
        "7f21d0e00000-7f21d0e01000 rw-s 00000000 00:05 1052                       "
        "/dev/nvidia0\n";
    // 20 KiB of path: more than the sweep's buffer holds. It is passed over, and what
    // follows it is read.
    maps += "7f21d0f00000-7f21d0f01000 r--s 00000000 103:02 77                         /" +
            std::string(20 * 1024, 'x') + "/dev/nvidia9\n";
    maps +=
        "7f21d1200000-7f21d1400000 rw-s 00000000 00:05 1051                       "
        "/dev/nvidiactl";  // the last line, without its newline
    fixture_process(proc, "610", maps);

    HostRoots roots;
    roots.procfs = proc;
    roots.devfs = "/dev";
    const SweepResult result = sweep_device_holders(roots);
    const DeviceHolder* holder = holder_of(result, 610);
    ASSERT_NE(holder, nullptr);
    EXPECT_EQ(held_as(*holder), (std::vector<std::string>{"nvidia0:m", "nvidiactl:m"}));
}

// A relocated root (the host's /dev at /host/dev in a DaemonSet): maps lines say /dev/...
// in the holder's namespace. The mapped file decides which root node it is: the line's own
// device and inode when they are a root node's, else /proc/PID/map_files (here a link to
// the file, as the kernel's magic link resolves to it); the text only when neither says.
TEST(MappingSweep, ARelocatedRootMatchesMappingsByTheFileMapped) {
    TempDir tmp;
    const std::string proc = tmp / "proc";
    const std::string host_dev = tmp / "host/dev";
    for (const char* node : {"nvidia0", "nvidia1", "nvidiactl"})
        write_file(host_dev + "/" + node, "");
    write_file(tmp / "other", "");
    struct stat nvidia1 {};
    ASSERT_EQ(::stat((host_dev + "/nvidia1").c_str(), &nvidia1), 0);
    const auto line = [](const std::string& range, const std::string& device, ino_t inode,
                         const std::string& path) {
        std::string head = range + " rw-s 00000000 " + device + " " + std::to_string(inode) + " ";
        head.resize(std::max<std::size_t>(head.size(), 73), ' ');
        return head + path + "\n";
    };
    // By text alone: no map_files entry to look at (another namespace's reader).
    fixture_process(proc, "700", line("7f0000000000-7f0000001000", "00:05", 1052, "/dev/nvidia0"));
    // map_files says it is the root's nvidia1, whatever its /dev calls it.
    fixture_process(proc, "701", line("7f0000000000-7f0000001000", "00:05", 1052, "/dev/nvidia0"));
    make_symlink(host_dev + "/nvidia1", proc + "/701/map_files/7f0000000000-7f0000001000");
    // The line names the root's nvidia1 file itself (a bind mount of it).
    char device[16];
    std::snprintf(device, sizeof device, "%02x:%02x", ::major(nvidia1.st_dev),
                  ::minor(nvidia1.st_dev));
    fixture_process(proc, "702",
                    line("7f0000000000-7f0000001000", device, nvidia1.st_ino, "/dev/nvidia0"));
    // A file named like a GPU node that is none of the root's: not a holder.
    fixture_process(proc, "703", line("7f0000000000-7f0000001000", "00:05", 1052, "/dev/nvidia0"));
    make_symlink(tmp / "other", proc + "/703/map_files/7f0000000000-7f0000001000");
    // Not a GPU name: never looked at further.
    fixture_process(proc, "704", line("7f0000000000-7f0000001000", "00:05", 3, "/dev/shm/x"));

    HostRoots roots;
    roots.procfs = proc;
    roots.devfs = host_dev;
    roots.sysfs = tmp / "sys";
    const SweepResult result = sweep_device_holders(roots);
    ASSERT_FALSE(result.error) << result.error->what;
    const auto nodes_of = [&](pid_t pid) {
        const DeviceHolder* holder = holder_of(result, pid);
        return holder == nullptr ? std::vector<std::string>{} : held_as(*holder);
    };
    EXPECT_EQ(nodes_of(700), (std::vector<std::string>{"nvidia0:m"}));
    EXPECT_EQ(nodes_of(701), (std::vector<std::string>{"nvidia1:m"}));
    EXPECT_EQ(nodes_of(702), (std::vector<std::string>{"nvidia1:m"}));
    EXPECT_TRUE(nodes_of(703).empty());
    EXPECT_TRUE(nodes_of(704).empty());
}

// A real holder in its own mount namespace whose /dev/nvidia0 is the root's nvidia1
// (bind-mounted), mapped and closed: the mapped file decides, as for an fd.
TEST(MappingSweep, ANamespacedMappingIsTheRootsNodeItMaps) {
    TempDir tmp;
    const std::string dev = tmp / "dev";
    for (const char* node : {"nvidia0", "nvidia1", "nvidiactl"}) write_file(dev + "/" + node, "");

    auto child = NamespacedChild::start(dev, [] {
        const int fd = ::open("/dev/nvidia0", O_RDWR);
        const bool mapped =
            fd >= 0 && ::mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fd, 0) != MAP_FAILED;
        if (fd >= 0) ::close(fd);
        return mapped;
    });
    if (!child) GTEST_SKIP() << "cannot make a mount namespace here (needs CAP_SYS_ADMIN)";
    const pid_t pid = child->pid();

    HostRoots roots;
    roots.devfs = dev;
    roots.sysfs = tmp / "no-sys";
    const SweepResult result = sweep_device_holders_of(roots, {pid});
    child->stop();
    const DeviceHolder* holder = holder_of(result, pid);
    ASSERT_NE(holder, nullptr) << "the namespaced mapping was missed";
    EXPECT_EQ(held_as(*holder), (std::vector<std::string>{"nvidia1:m"}));
}

}  // namespace
}  // namespace gpukill

#include "population.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "capacity.hpp"
#include "interrupt.hpp"
#include "os_failure.hpp"
#include "population_child.hpp"
#include "scoped_fd.hpp"

namespace gpukill::bench {
namespace {

constexpr int kNvidiaGpus = 8;

void write_file(const std::string& path, std::size_t bytes) {
    std::ofstream out(path, std::ios::binary);
    out << std::string(bytes, 'x');
    if (!out) throw std::runtime_error("cannot write " + path);
}

// Holder h holds the control and UVM nodes and GPU h % 8, with two fds on the GPU and
// the control node as the CUDA runtime keeps them; every fourth also a second GPU.
// At most 6 entries, within ChildSpec::devices.
std::vector<int> holder_device_indexes(std::size_t holder) {
    const int gpu = static_cast<int>(holder % kNvidiaGpus);
    std::vector<int> indexes = {kNvidiaGpus, kNvidiaGpus, kNvidiaGpus + 1, gpu, gpu};
    if (holder % 4 == 3) indexes.push_back((gpu + 1) % kNvidiaGpus);
    return indexes;
}

}  // namespace

ChildGroup::ChildGroup() {
    int fds[2];
    // O_CLOEXEC: the tools the benchmark spawns must not inherit the release pipe.
    if (::pipe2(fds, O_CLOEXEC) != 0) throw os_failure("pipe", errno);
    release_read_ = fds[0];
    release_write_ = fds[1];
}

ChildGroup::~ChildGroup() {
    // Every PID in pids_ is an unreaped child, so the group cannot have been recycled:
    // this signals only processes this object forked.
    if (pgid_ > 0) ::kill(-pgid_, SIGKILL);
    ::close(release_write_);
    ::close(release_read_);
    for (pid_t pid : pids_) {
        while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
        }
    }
}

void ChildGroup::adopt(pid_t pid) {
    pids_.push_back(pid);
    if (pgid_ == 0) pgid_ = pid;
    // Also done by the child: whichever runs first wins the race with the other's use.
    ::setpgid(pid, pgid_);
}

Population::Population(const PopulationConfig& config) {
    if (config.holders == 0 || config.holders > config.processes) {
        throw std::runtime_error("--holders must be between 1 and --processes");
    }
    if (const std::string problems =
            capacity_problems(config.processes, config.fds_per_process + kMaxChildDevices);
        !problems.empty()) {
        throw std::runtime_error("this host cannot start " + std::to_string(config.processes) +
                                 " processes:\n" + problems);
    }
    create_files();

    int ready[2];
    if (::pipe2(ready, O_CLOEXEC) != 0) throw os_failure("pipe", errno);
    const ScopedFd ready_read(ready[0]);
    ScopedFd ready_write(ready[1]);
    start_children(config, ready_write.get());
    // Only the children hold the write end now: it reaches EOF when the last one closes it.
    ready_write.reset();
    await_children(ready_read.get(), config.processes);
}

void Population::create_files() {
    devfs_ = root() + "/dev";
    data_file_ = root() + "/data.bin";
    std::filesystem::create_directory(devfs_);
    for (int i = 0; i < kNvidiaGpus; ++i) {
        device_files_.push_back(devfs_ + "/nvidia" + std::to_string(i));
    }
    device_files_.push_back(devfs_ + "/nvidiactl");
    device_files_.push_back(devfs_ + "/nvidia-uvm");
    for (const auto& file : device_files_) write_file(file, 0);
    write_file(data_file_, 4096);
}

void Population::start_children(const PopulationConfig& config, int ready_fd) {
    // Holders are spread over the PID range so no tool gains from where they sit.
    const std::size_t stride = config.processes / config.holders;
    std::fflush(nullptr);  // children _exit, but keep their copies of stdio buffers empty
    for (std::size_t i = 0; i < config.processes; ++i) {
        throw_if_interrupted();
        ChildSpec spec;
        spec.release_fd = children_.release_read_fd();
        spec.ready_fd = ready_fd;
        spec.pgid = children_.pgid();
        spec.data_file = data_file_.c_str();
        spec.directory = root().c_str();
        spec.fds = config.fds_per_process;
        std::vector<std::string> nodes;  // relative to devfs, for the correctness check
        if (i % stride == 0 && i / stride < config.holders) {
            for (int index : holder_device_indexes(i / stride)) {
                const std::string& file = device_files_[static_cast<std::size_t>(index)];
                spec.devices[spec.device_count++] = file.c_str();
                nodes.push_back(file.substr(devfs_.size() + 1));
            }
        }

        const pid_t pid = ::fork();
        if (pid < 0) {
            throw os_failure("fork failed after " + std::to_string(i) + " of " +
                                 std::to_string(config.processes) +
                                 " processes (raise ulimit -u, the pids cgroup limit or "
                                 "kernel.pid_max)",
                             errno);
        }
        if (pid == 0) run_child(spec);
        children_.adopt(pid);
        if (!nodes.empty()) {
            std::sort(nodes.begin(), nodes.end());
            nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
            expected_.emplace(pid, std::move(nodes));
        }
    }
}

void Population::await_children(int ready_fd, std::size_t count) {
    // Every child writes one report and closes its end, so EOF means all have either set
    // up or failed: the measurement starts only once the whole population is in place.
    std::size_t ready = 0;
    std::size_t failures = 0;
    ChildReport first_failure{};
    while (true) {
        ChildReport report;
        const ssize_t n = ::read(ready_fd, &report, sizeof report);
        if (n == 0) break;
        if (n < 0) {
            if (errno != EINTR) throw os_failure("reading the children's reports", errno);
            throw_if_interrupted();
            continue;
        }
        if (n != sizeof report) throw std::runtime_error("short report from a child");
        if (report.step < 0) {
            ++ready;
        } else if (failures++ == 0) {
            first_failure = report;
        }
    }
    if (ready == count) return;
    std::string message = std::to_string(count - ready) + " of " + std::to_string(count) +
                          " processes failed to set up";
    if (failures > 0) {
        message += std::string("; first failure: ") + child_step_name(first_failure.step) + ": " +
                   std::strerror(first_failure.error);
    }
    throw std::runtime_error(message);
}

std::vector<pid_t> Population::holder_pids() const {
    std::vector<pid_t> pids;
    for (const auto& [pid, nodes] : expected_) pids.push_back(pid);
    return pids;
}

}  // namespace gpukill::bench

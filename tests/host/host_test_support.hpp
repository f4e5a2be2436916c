// Helpers for the src/host tests: fixture text, temporary trees, and child processes the
// test starts, waits for without sleeping, and always kills and reaps (RAII).
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "host/fd_sweep.hpp"

namespace gpukill::host_test {

inline std::string fixture(std::string_view relative) {
    const std::string path = std::string(GPUKILL_FIXTURES_DIR) + "/" + std::string(relative);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("missing fixture " + path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// A fresh directory under $TMPDIR or /tmp, removed with everything in it.
class TempDir {
  public:
    TempDir() {
        const char* base = std::getenv("TMPDIR");
        std::string pattern = std::string(base && *base ? base : "/tmp") + "/gpukill-host-XXXXXX";
        if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
        // Canonical, so it compares equal to the paths the kernel prints in fd links.
        path_ = std::filesystem::canonical(pattern).string();
    }
    ~TempDir() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::string& path() const { return path_; }
    std::string operator/(std::string_view relative) const {
        return path_ + "/" + std::string(relative);
    }

  private:
    std::string path_;
};

inline void write_file(const std::string& path, std::string_view content) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream out(path, std::ios::binary);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    if (!out) throw std::runtime_error("cannot write " + path);
}

inline void make_symlink(const std::string& target, const std::string& link) {
    std::filesystem::create_directories(std::filesystem::path(link).parent_path());
    std::filesystem::create_symlink(target, link);
}

// A child process that opens `paths` and then blocks on a pipe until the guard goes out
// of scope, when it is killed and reaped. The constructor returns once the child has
// opened everything (it writes one byte when ready), so there is no sleeping for luck.
class HoldingChild {
  public:
    explicit HoldingChild(const std::vector<std::string>& paths) {
        // Everything the child touches is prepared before fork: after it, the child makes
        // only async-signal-safe calls.
        std::vector<const char*> c_paths;
        for (const auto& p : paths) c_paths.push_back(p.c_str());
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
            for (const char* p : c_paths) {
                if (::open(p, O_RDONLY) < 0) ::_exit(2);
            }
            if (::write(ready[1], "r", 1) != 1) ::_exit(3);
            char byte;
            while (::read(block[0], &byte, 1) != 0) {
            }
            ::_exit(0);
        }
        ::close(ready[1]);
        ::close(block[0]);
        block_write_ = block[1];
        char byte = 0;
        const ssize_t n = ::read(ready[0], &byte, 1);
        ::close(ready[0]);
        if (n != 1) {
            reap();
            throw std::runtime_error("child could not open its files");
        }
    }
    ~HoldingChild() { reap(); }
    HoldingChild(const HoldingChild&) = delete;
    HoldingChild& operator=(const HoldingChild&) = delete;

    pid_t pid() const { return pid_; }

  private:
    void reap() {
        if (block_write_ >= 0) ::close(block_write_);
        block_write_ = -1;
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);  // our own child, started above
            int status = 0;
            while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
            }
            pid_ = -1;
        }
    }

    pid_t pid_ = -1;
    int block_write_ = -1;
};

// A child in its own mount namespace, whose /dev is a fresh tmpfs where /dev/nvidia0 is
// `root_dev`/nvidia1 bind-mounted (the root's nvidia1 under another name, as a container
// sees a device it was given). There it runs `hold` (after fork: only system calls, no
// allocation), which returns whether the child now holds what the test needs, and sleeps
// until stopped. Null when the namespace cannot be made here (it needs CAP_SYS_ADMIN):
// the caller skips.
class NamespacedChild {
  public:
    static std::unique_ptr<NamespacedChild> start(const std::string& root_dev,
                                                  const std::function<bool()>& hold) {
        const std::string nvidia1 = root_dev + "/nvidia1";
        int ready[2];
        if (::pipe2(ready, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
        const pid_t pid = ::fork();
        if (pid < 0) throw std::runtime_error("fork failed");
        if (pid == 0) {
            ::close(ready[0]);
            char status = 'n';
            if (::unshare(CLONE_NEWNS) == 0 &&
                ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0 &&
                ::mount("none", "/dev", "tmpfs", 0, nullptr) == 0) {
                const int placeholder =
                    ::open("/dev/nvidia0", O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
                if (placeholder >= 0) ::close(placeholder);
                if (::mount(nvidia1.c_str(), "/dev/nvidia0", nullptr, MS_BIND, nullptr) == 0 &&
                    hold()) {
                    status = 'y';
                }
            }
            if (::write(ready[1], &status, 1) != 1) ::_exit(1);
            if (status != 'y') ::_exit(0);
            ::pause();
            ::_exit(0);
        }
        ::close(ready[1]);
        std::unique_ptr<NamespacedChild> child(new NamespacedChild(pid));
        pollfd waiting{ready[0], POLLIN, 0};
        char status = 'n';
        const bool answered = ::poll(&waiting, 1, 10000) == 1 && ::read(ready[0], &status, 1) == 1;
        ::close(ready[0]);
        if (!answered || status != 'y') return nullptr;  // the destructor stops it
        return child;
    }
    ~NamespacedChild() { stop(); }
    NamespacedChild(const NamespacedChild&) = delete;
    NamespacedChild& operator=(const NamespacedChild&) = delete;

    pid_t pid() const { return pid_; }
    // Killed and reaped now.
    void stop() {
        if (pid_ <= 0) return;
        ::kill(pid_, SIGKILL);  // this test's own child
        while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
        }
        pid_ = -1;
    }

  private:
    explicit NamespacedChild(pid_t pid) : pid_(pid) {}
    pid_t pid_;
};

// The holder a sweep found with `pid`, or null.
inline const DeviceHolder* holder_of(const SweepResult& result, pid_t pid) {
    for (const DeviceHolder& holder : result.holders) {
        if (holder.pid == pid) return &holder;
    }
    return nullptr;
}

// The PID of a child that has exited and been reaped: a process that no longer exists.
inline pid_t reaped_child_pid() {
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) ::_exit(0);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return pid;
}

}  // namespace gpukill::host_test

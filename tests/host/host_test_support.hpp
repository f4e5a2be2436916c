// Helpers for the src/host tests: fixture text, temporary trees, and child processes the
// test starts, waits for without sleeping, and always kills and reaps (RAII).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

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

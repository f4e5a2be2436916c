// File-descriptor level reading shared by the procfs readers and the fd sweep.
// Everything is relative to directory fds (openat, readlinkat) so a /proc/PID directory
// opened once keeps referring to that process even if its PID is reused meanwhile.
#pragma once

#include <string>

#include "model/result.hpp"

namespace gpukill {

// Owns one file descriptor; closes it once. Move-only.
class UniqueFd {
  public:
    UniqueFd() = default;
    explicit UniqueFd(int fd) : fd_(fd) {}
    UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
    UniqueFd& operator=(UniqueFd&& other) noexcept;
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;
    ~UniqueFd();

    int get() const { return fd_; }
    explicit operator bool() const { return fd_ >= 0; }
    int release() {
        const int fd = fd_;
        fd_ = -1;
        return fd;
    }

  private:
    int fd_ = -1;
};

// Opens a directory (O_DIRECTORY | O_CLOEXEC). dir_fd may be AT_FDCWD.
Result<UniqueFd> open_dir_at(int dir_fd, const char* path);

// Reads a whole file until EOF: procfs and sysfs files report size 0, so the size from
// fstat cannot be trusted. dir_fd may be AT_FDCWD.
Result<std::string> read_file_at(int dir_fd, const char* path);

// The target of a symbolic link, however long (grows the buffer past PATH_MAX if needed).
Result<std::string> read_link_at(int dir_fd, const char* path);

// "what: strerror(errno)" with errno kept, for Result errors.
Error os_error(std::string what, int errno_value);

}  // namespace gpukill

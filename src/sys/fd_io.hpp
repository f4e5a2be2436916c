// File-descriptor level reading shared by the procfs readers and the fd sweep.
// Everything is relative to directory fds (openat, readlinkat) so a /proc/PID directory
// opened once keeps referring to that process even if its PID is reused meanwhile.
#pragma once

#include <cstddef>
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

// `relative` opened for reading with every name in it resolved beneath `dir_fd`: a
// symbolic link is followed only while it stays below that directory, and "..", an
// absolute link or a magic link (/proc/self/...) that would leave it fails with EXDEV
// (openat2 RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS). O_NONBLOCK: a FIFO planted under the
// name is not waited on. Where openat2 is missing (Linux before 5.6; ENOSYS, or EPERM
// from a seccomp profile that predates it) each name is opened in turn with O_NOFOLLOW:
// no link at all is followed. The error keeps errno (ENOENT: nothing there).
Result<UniqueFd> open_beneath(int dir_fd, const std::string& relative);

// The whole of a regular file, when it holds at most `max_bytes`. Errors: not a regular
// file (EINVAL), larger than `max_bytes` (EFBIG: nothing past the limit is read), a read
// error. `what` names the file in the error.
Result<std::string> read_regular_file_bounded(int fd, std::size_t max_bytes,
                                              const std::string& what);

// "what: strerror(errno)" with errno kept, for Result errors.
Error os_error(std::string what, int errno_value);

}  // namespace gpukill

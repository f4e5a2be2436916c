#pragma once
// Small file-system helpers with errors as values.

#include <filesystem>
#include <string>
#include <utility>

#include "state/error.hpp"

namespace gpusim {

// Owns a file descriptor; closes it once.
class Fd {
  public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    Fd& operator=(Fd&& other) noexcept;
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd();

    int get() const { return fd_; }
    bool valid() const { return fd_ >= 0; }
    // Gives up ownership without closing (the descriptor must outlive this object).
    int release() { return std::exchange(fd_, -1); }

  private:
    int fd_ = -1;
};

// open(2) with O_CLOEXEC added; the error names the path.
Result<Fd> open_file(const std::filesystem::path& path, int flags, unsigned mode = 0644);

Result<std::string> read_file(const std::filesystem::path& path);

// Writes `content` to a temporary file next to `path` and renames it over `path`, so readers
// see the old content or the new one, never a part.
Result<void> write_file_atomic(const std::filesystem::path& path, const std::string& content);

// Writes all of `content` to `fd`, retrying short writes and EINTR.
bool write_all(int fd, std::string_view content);

}  // namespace gpusim

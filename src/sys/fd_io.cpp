#include "sys/fd_io.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gpukill {
namespace {
constexpr std::size_t kMaxLinkLength = 1 << 20;
}  // namespace

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = other.release();
    }
    return *this;
}

UniqueFd::~UniqueFd() {
    if (fd_ >= 0) ::close(fd_);
}

Error os_error(std::string what, int errno_value) {
    what += ": ";
    what += std::strerror(errno_value);
    return Error{std::move(what), errno_value};
}

Result<UniqueFd> open_dir_at(int dir_fd, const char* path) {
    const int fd = ::openat(dir_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return std::unexpected(os_error(std::string("cannot open ") + path, errno));
    return UniqueFd(fd);
}

Result<std::string> read_file_at(int dir_fd, const char* path) {
    UniqueFd fd(::openat(dir_fd, path, O_RDONLY | O_CLOEXEC));
    if (!fd) return std::unexpected(os_error(std::string("cannot open ") + path, errno));

    std::string text;
    std::size_t used = 0;
    text.resize(4096);
    while (true) {
        if (used == text.size()) text.resize(text.size() * 2);
        const ssize_t n = ::read(fd.get(), text.data() + used, text.size() - used);
        if (n < 0) {
            if (errno == EINTR) continue;
            return std::unexpected(os_error(std::string("cannot read ") + path, errno));
        }
        if (n == 0) break;
        used += static_cast<std::size_t>(n);
    }
    text.resize(used);
    return text;
}

Result<std::string> read_link_at(int dir_fd, const char* path) {
    std::string target(256, '\0');
    while (true) {
        const ssize_t n = ::readlinkat(dir_fd, path, target.data(), target.size());
        if (n < 0) return std::unexpected(os_error(std::string("cannot read link ") + path, errno));
        // A result that fills the buffer may have been cut: retry with more room.
        if (static_cast<std::size_t>(n) < target.size()) {
            target.resize(static_cast<std::size_t>(n));
            return target;
        }
        // Link text is bounded by a page in the kernel; a cap keeps a bug from looping on.
        if (target.size() >= kMaxLinkLength) {
            return std::unexpected(os_error(std::string("cannot read link ") + path, ENAMETOOLONG));
        }
        target.resize(target.size() * 2);
    }
}

}  // namespace gpukill

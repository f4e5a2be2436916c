#include "sys/fd_io.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
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

Result<UniqueFd> open_beneath(int dir_fd, const std::string& relative) {
    constexpr int kFlags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
    open_how how{};
    how.flags = kFlags;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
    const long fd = ::syscall(SYS_openat2, dir_fd, relative.c_str(), &how, sizeof how);
    if (fd >= 0) return UniqueFd(static_cast<int>(fd));
    if (errno != ENOSYS && errno != EPERM) {
        return std::unexpected(os_error("cannot open " + relative, errno));
    }
    // No openat2: walk the names one by one, following no link and never "..".
    UniqueFd held;
    int at = dir_fd;
    std::size_t start = 0;
    while (true) {
        const std::size_t slash = relative.find('/', start);
        const std::string name = relative.substr(start, slash - start);
        if (name.empty() || name == "." || name == "..") {
            return std::unexpected(os_error("cannot open " + relative, EXDEV));
        }
        const bool last = slash == std::string::npos;
        UniqueFd next(
            ::openat(at, name.c_str(),
                     last ? kFlags | O_NOFOLLOW : O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!next) return std::unexpected(os_error("cannot open " + relative, errno));
        if (last) return next;
        held = std::move(next);
        at = held.get();
        start = slash + 1;
    }
}

Result<std::string> read_regular_file_bounded(int fd, std::size_t max_bytes,
                                              const std::string& what) {
    struct stat info {};
    if (::fstat(fd, &info) != 0) return std::unexpected(os_error("cannot stat " + what, errno));
    if (!S_ISREG(info.st_mode)) {
        return std::unexpected(os_error(what + " is not a regular file", EINVAL));
    }
    if (static_cast<std::uint64_t>(info.st_size) > max_bytes) {
        return std::unexpected(os_error(what, EFBIG));
    }
    // The size may change while reading: read one byte past the limit to know.
    std::string text(static_cast<std::size_t>(info.st_size) + 1, '\0');
    std::size_t used = 0;
    while (true) {
        if (used == text.size()) {
            if (text.size() > max_bytes) return std::unexpected(os_error(what, EFBIG));
            text.resize(std::min(text.size() * 2, max_bytes + 1));
        }
        const ssize_t n = ::read(fd, text.data() + used, text.size() - used);
        if (n < 0) {
            if (errno == EINTR) continue;
            return std::unexpected(os_error("cannot read " + what, errno));
        }
        if (n == 0) break;
        used += static_cast<std::size_t>(n);
    }
    if (used > max_bytes) return std::unexpected(os_error(what, EFBIG));
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

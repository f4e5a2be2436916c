#include "state/files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

namespace gpusim {

std::string errno_text(int err) {
    std::array<char, 256> buffer{};
    // GNU strerror_r returns the message, which may or may not live in the buffer.
    return ::strerror_r(err, buffer.data(), buffer.size());
}

Fd& Fd::operator=(Fd&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
}

Fd::~Fd() {
    if (fd_ >= 0) ::close(fd_);
}

Result<Fd> open_file(const std::filesystem::path& path, int flags, unsigned mode) {
    const int fd = ::open(path.c_str(), flags | O_CLOEXEC, static_cast<mode_t>(mode));
    if (fd < 0)
        return fail(kExitFailure, "cannot open " + path.string() + ": " + errno_text(errno));
    return Fd(fd);
}

Result<std::string> read_file(const std::filesystem::path& path) {
    auto fd = open_file(path, O_RDONLY);
    if (!fd) return std::unexpected(fd.error());
    std::string content;
    std::array<char, 4096> buffer{};
    for (;;) {
        const ssize_t got = ::read(fd->get(), buffer.data(), buffer.size());
        if (got < 0 && errno == EINTR) continue;
        if (got < 0)
            return fail(kExitFailure, "cannot read " + path.string() + ": " + errno_text(errno));
        if (got == 0) break;
        content.append(buffer.data(), static_cast<std::size_t>(got));
    }
    return content;
}

bool write_all(int fd, std::string_view content) {
    while (!content.empty()) {
        const ssize_t wrote = ::write(fd, content.data(), content.size());
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) return false;
        content.remove_prefix(static_cast<std::size_t>(wrote));
    }
    return true;
}

Result<void> write_file_atomic(const std::filesystem::path& path, const std::string& content) {
    // The pid makes the temporary name unique among concurrent writers.
    std::filesystem::path temporary = path;
    temporary += ".tmp." + std::to_string(::getpid());
    {
        auto fd = open_file(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (!fd) return std::unexpected(fd.error());
        if (!write_all(fd->get(), content)) {
            const int err = errno;
            ::unlink(temporary.c_str());
            return fail(kExitFailure,
                        "cannot write " + temporary.string() + ": " + errno_text(err));
        }
    }
    if (::rename(temporary.c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(temporary.c_str());
        return fail(kExitFailure, "cannot rename into " + path.string() + ": " + errno_text(err));
    }
    return {};
}

}  // namespace gpusim

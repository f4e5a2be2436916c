#include "guard/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "sys/fd_io.hpp"

namespace gpukill::guard {
namespace {

std::string directory_of(const std::string& path) {
    const auto slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    if (slash == 0) return "/";
    return path.substr(0, slash);
}

Result<void> write_all(int fd, std::string_view content, const std::string& path) {
    while (!content.empty()) {
        const ssize_t written = ::write(fd, content.data(), content.size());
        if (written < 0) {
            if (errno == EINTR) continue;
            return std::unexpected(os_error("cannot write " + path, errno));
        }
        content.remove_prefix(static_cast<std::size_t>(written));
    }
    return {};
}

enum class Publish { replace, create };

Result<void> write_atomically(const std::string& path, std::string_view content, mode_t mode,
                              Publish publish) {
    struct stat existing {};
    const bool exists = publish == Publish::replace && ::stat(path.c_str(), &existing) == 0;
    std::string temporary_path = path + ".tmp.XXXXXX";
    std::vector<char> name(temporary_path.begin(), temporary_path.end());
    name.push_back('\0');
    UniqueFd fd(::mkostemp(name.data(), O_CLOEXEC));
    if (!fd) return std::unexpected(os_error("cannot create a file next to " + path, errno));
    temporary_path = name.data();
    auto cleanup_on_error = [&](Error error) {
        ::unlink(temporary_path.c_str());
        return std::unexpected(std::move(error));
    };
    if (auto written = write_all(fd.get(), content, temporary_path); !written) {
        return cleanup_on_error(written.error());
    }
    const mode_t wanted = exists ? (existing.st_mode & 07777) : mode;
    if (::fchmod(fd.get(), wanted) != 0) {
        return cleanup_on_error(os_error("cannot set the mode of " + temporary_path, errno));
    }
    if (exists && ::geteuid() == 0) {
        // Best kept as it was: a policy owned by root:gpuadmins stays so.
        if (::fchown(fd.get(), existing.st_uid, existing.st_gid) != 0) {
            return cleanup_on_error(os_error("cannot set the owner of " + temporary_path, errno));
        }
    }
    if (::fsync(fd.get()) != 0) {
        return cleanup_on_error(os_error("cannot sync " + temporary_path, errno));
    }
    if (publish == Publish::create) {
        if (::link(temporary_path.c_str(), path.c_str()) != 0) {
            const int reason = errno;
            if (reason == EEXIST) {
                return cleanup_on_error(Error{.what = path + " exists; it is not overwritten",
                                              .errno_value = reason,
                                              .category = ErrorCategory::conflict});
            }
            return cleanup_on_error(os_error("cannot create " + path, reason));
        }
        ::unlink(temporary_path.c_str());
    } else if (::rename(temporary_path.c_str(), path.c_str()) != 0) {
        return cleanup_on_error(os_error("cannot replace " + path, errno));
    }
    // The rename itself is durable only once the directory is synced.
    UniqueFd directory(::open(directory_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (directory && ::fsync(directory.get()) != 0 && errno != EINVAL) {
        return std::unexpected(os_error("cannot sync the directory of " + path, errno));
    }
    return {};
}

}  // namespace

Result<void> replace_file_atomically(const std::string& path, std::string_view content,
                                     mode_t mode) {
    return write_atomically(path, content, mode, Publish::replace);
}

Result<void> create_file_atomically(const std::string& path, std::string_view content,
                                    mode_t mode) {
    return write_atomically(path, content, mode, Publish::create);
}

}  // namespace gpukill::guard

#include "backends/drm/sysfs_attribute.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>

#include "sys/fd_io.hpp"

namespace gpukill::drm {
namespace {

bool means_absent(int errno_value) {
    return errno_value == ENOENT || errno_value == ENOTDIR;
}

}  // namespace

Result<std::optional<std::string>> read_attribute(const std::string& path) {
    auto text = read_file_at(AT_FDCWD, path.c_str());
    if (text) return std::optional<std::string>(std::move(*text));
    const int code = text.error().errno_value;
    if (means_absent(code) || code == EOPNOTSUPP || code == ENODATA) {
        return std::optional<std::string>{};
    }
    return std::unexpected(text.error());
}

Result<std::optional<std::string>> read_optional_link(const std::string& path) {
    auto target = read_link_at(AT_FDCWD, path.c_str());
    if (target) return std::optional<std::string>(std::move(*target));
    if (means_absent(target.error().errno_value)) return std::optional<std::string>{};
    return std::unexpected(target.error());
}

Result<std::optional<std::vector<std::string>>> list_directory(const std::string& path) {
    auto dir_fd = open_dir_at(AT_FDCWD, path.c_str());
    if (!dir_fd) {
        if (means_absent(dir_fd.error().errno_value)) {
            return std::optional<std::vector<std::string>>{};
        }
        return std::unexpected(dir_fd.error());
    }
    DIR* dir = ::fdopendir(dir_fd->get());
    if (dir == nullptr) return std::unexpected(os_error("cannot list " + path, errno));
    dir_fd->release();  // closedir closes it now
    std::vector<std::string> names;
    errno = 0;
    while (const dirent* entry = ::readdir(dir)) {
        const std::string_view name = entry->d_name;
        if (name != "." && name != "..") names.emplace_back(name);
        errno = 0;
    }
    const int read_errno = errno;
    ::closedir(dir);
    if (read_errno != 0) return std::unexpected(os_error("cannot list " + path, read_errno));
    std::sort(names.begin(), names.end());
    return std::optional<std::vector<std::string>>(std::move(names));
}

bool path_exists(const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0;
}

}  // namespace gpukill::drm

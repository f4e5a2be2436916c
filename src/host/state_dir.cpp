#include "host/state_dir.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cstdlib>

#include "sys/fd_io.hpp"

namespace gpukill {

std::string without_trailing_slashes(std::string path) {
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    return path;
}

std::string state_file_path(const std::string& dir, const std::string& name) {
    const std::string base = without_trailing_slashes(dir);
    return (base == "/" ? "" : base) + "/" + name;
}

Result<std::string> resolved_state_directory(const std::string& dir) {
    char resolved[PATH_MAX];
    if (::realpath(dir.c_str(), resolved) == nullptr) {
        return std::unexpected(os_error("cannot use state directory " + dir, errno));
    }
    return std::string(resolved);
}

Result<void> make_state_directory(const std::string& dir) {
    if (dir.empty()) {
        return fail("the state directory is empty: set --state-dir or GPUKILL_STATE_DIR");
    }
    std::size_t end = 0;
    while (end != std::string::npos) {
        end = dir.find('/', end + 1);
        const std::string prefix = dir.substr(0, end);
        struct stat st {};
        if (::stat(prefix.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) continue;
        // EEXIST: made by a concurrent writer meanwhile, or not a directory (the final
        // check below says which).
        if (::mkdir(prefix.c_str(), kStateDirMode) != 0 && errno != EEXIST) {
            return std::unexpected(os_error("cannot create state directory " + prefix, errno));
        }
    }
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) {
        return std::unexpected(os_error("cannot use state directory " + dir, errno));
    }
    if (!S_ISDIR(st.st_mode)) {
        return std::unexpected(os_error("cannot use state directory " + dir, ENOTDIR));
    }
    return {};
}

}  // namespace gpukill

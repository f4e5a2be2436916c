#include "proc_fd_walk.hpp"

#include <dirent.h>
#include <limits.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string_view>

namespace gpukill::bench {

FloorResult walk_proc_fds(const std::string& procfs, const std::string& prefix) {
    FloorResult result;
    DIR* proc = ::opendir(procfs.c_str());
    if (proc == nullptr) return result;

    char path[PATH_MAX];
    char link[PATH_MAX];
    while (const dirent* entry = ::readdir(proc)) {
        const char* name = entry->d_name;
        if (name[0] < '1' || name[0] > '9') continue;  // ".", "..", "self", "sys", ...
        const int len = std::snprintf(path, sizeof path, "%s/%s/fd", procfs.c_str(), name);
        if (len < 0 || static_cast<std::size_t>(len) >= sizeof path) continue;

        DIR* fds = ::opendir(path);
        if (fds == nullptr) continue;  // exited, or not ours to read
        ++result.processes;
        const int fds_fd = ::dirfd(fds);
        bool holds = false;
        while (const dirent* fd_entry = ::readdir(fds)) {
            if (fd_entry->d_name[0] == '.') continue;
            const ssize_t n = ::readlinkat(fds_fd, fd_entry->d_name, link, sizeof link);
            if (n <= 0) continue;
            ++result.links_read;
            if (std::string_view(link, static_cast<std::size_t>(n)).starts_with(prefix)) {
                ++result.prefix_links;
                holds = true;
            }
        }
        ::closedir(fds);

        if (holds) {
            pid_t pid = 0;
            std::from_chars(name, name + std::strlen(name), pid);
            result.holder_pids.push_back(pid);
        }
    }
    ::closedir(proc);
    // readdir order on procfs is ascending already; sorting keeps the contract explicit.
    std::sort(result.holder_pids.begin(), result.holder_pids.end());
    return result;
}

}  // namespace gpukill::bench

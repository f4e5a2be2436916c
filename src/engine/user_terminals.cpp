#include "engine/user_terminals.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <memory>

#include "model/human_format.hpp"
#include "sys/fd_io.hpp"

namespace gpukill::engine {
namespace {

bool digits(std::string_view text) {
    if (text.empty()) return false;
    for (char c : text) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    }
    return true;
}

}  // namespace

bool is_user_terminal(std::string_view link_target) {
    if (link_target.starts_with("/dev/pts/")) return digits(link_target.substr(9));
    if (link_target.starts_with("/dev/tty")) return digits(link_target.substr(8));
    return false;
}

std::set<std::string> user_terminals(const HostRoots& roots, uid_t uid) {
    std::set<std::string> terminals;
    std::unique_ptr<DIR, int (*)(DIR*)> proc(::opendir(roots.procfs.c_str()), ::closedir);
    if (!proc) return terminals;
    while (dirent* entry = ::readdir(proc.get())) {
        if (!digits(entry->d_name)) continue;
        auto dir = open_dir_at(dirfd(proc.get()), entry->d_name);
        if (!dir) continue;
        // The directory's owner is the process's effective uid.
        struct stat owner {};
        if (::fstat(dir->get(), &owner) != 0 || owner.st_uid != uid) continue;
        for (const char* fd : {"fd/0", "fd/1", "fd/2"}) {
            auto target = read_link_at(dir->get(), fd);
            if (target && is_user_terminal(*target)) terminals.insert(*target);
        }
    }
    return terminals;
}

std::set<std::string> write_to_terminals(const std::set<std::string>& terminals, uid_t uid,
                                         std::string_view message) {
    const std::string text = "\r\n\a*** " + printable(message) + " ***\r\n";
    std::set<std::string> written;
    for (const std::string& path : terminals) {
        // Non-blocking: a terminal stopped with ^S must not stall the guard.
        UniqueFd fd(::open(path.c_str(), O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC));
        if (!fd) continue;
        struct stat info {};
        if (::fstat(fd.get(), &info) != 0 || !S_ISCHR(info.st_mode) || info.st_uid != uid) continue;
        if (::write(fd.get(), text.data(), text.size()) == static_cast<ssize_t>(text.size())) {
            written.insert(path);
        }
    }
    return written;
}

}  // namespace gpukill::engine

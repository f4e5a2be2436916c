// Reading a process's program files. Every lookup starts from one open PROCFS/PID
// directory; paths are walked inside the process's root (PROCFS/PID/root) a component at
// a time with O_NOFOLLOW, so no symbolic link a user made can send the walk elsewhere,
// and each directory is looked at once per process however many files it holds.
#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <string>

#include "host/proc_parse.hpp"
#include "host/program_files.hpp"
#include "model/parse_util.hpp"
#include "sys/fd_io.hpp"

namespace gpukill {
namespace {

FileFacts facts_of(const struct stat& st) {
    return FileFacts{.uid = st.st_uid, .mode = st.st_mode};
}

std::optional<FileFacts> stat_at(int dir_fd, const char* path, int flags) {
    struct stat st {};
    if (::fstatat(dir_fd, path, &st, flags) != 0) return std::nullopt;
    return facts_of(st);
}

// The directories of paths inside one process's root, each opened (O_PATH) and looked at
// once.
class RootWalk {
  public:
    explicit RootWalk(UniqueFd root) {
        struct stat st {};
        if (root && ::fstat(root.get(), &st) == 0) {
            directories_.emplace("/", Directory{std::move(root), facts_of(st)});
        }
    }

    // Fills file.directories (or file.unresolved) for file.path; the fd of the file's own
    // directory, or -1.
    int walk(ProgramFile& file) {
        auto root = directories_.find("/");
        if (root == directories_.end()) {
            file.unresolved = "the process's root directory cannot be opened";
            return -1;
        }
        if (file.path.empty() || file.path.front() != '/') {
            file.unresolved = "the path is not absolute";
            return -1;
        }
        file.directories.push_back({"/", root->second.facts});
        int fd = root->second.fd.get();
        std::string so_far;
        std::string_view rest = std::string_view(file.path).substr(1);
        while (true) {
            const auto slash = rest.find('/');
            if (slash == std::string_view::npos) break;  // the rest is the file's name
            const std::string_view name = rest.substr(0, slash);
            rest.remove_prefix(slash + 1);
            if (name.empty() || name == "." || name == "..") {
                file.unresolved = "the path is not in canonical form";
                return -1;
            }
            so_far += "/";
            so_far += name;
            auto known = directories_.find(so_far);
            if (known == directories_.end()) {
                const std::string component(name);
                UniqueFd next(
                    ::openat(fd, component.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
                struct stat st {};
                if (!next || ::fstat(next.get(), &st) != 0) {
                    file.unresolved = so_far + ": " + std::strerror(errno) +
                                      (errno == ENOTDIR ? " (a symbolic link or a file)" : "");
                    return -1;
                }
                known =
                    directories_.emplace(so_far, Directory{std::move(next), facts_of(st)}).first;
            }
            file.directories.push_back({so_far, known->second.facts});
            fd = known->second.fd.get();
        }
        if (rest.empty() || rest == "." || rest == "..") {
            file.unresolved = "the path is not in canonical form";
            return -1;
        }
        return fd;
    }

  private:
    struct Directory {
        UniqueFd fd;
        FileFacts facts;
    };
    std::map<std::string, Directory> directories_;
};

std::string_view name_of(const std::string& path) {
    return std::string_view(path).substr(path.rfind('/') + 1);
}

bool same_user_namespace(int pid_fd, const HostRoots& roots) {
    struct stat theirs {};
    struct stat ours {};
    if (::fstatat(pid_fd, "ns/user", &theirs, 0) != 0) return false;
    if (::stat((roots.procfs + "/self/ns/user").c_str(), &ours) != 0) return false;
    return theirs.st_dev == ours.st_dev && theirs.st_ino == ours.st_ino;
}

}  // namespace

Result<ProgramFiles> read_program_files(const HostRoots& roots, pid_t pid) {
    const std::string dir = roots.procfs + "/" + std::to_string(pid);
    auto pid_fd = open_dir_at(AT_FDCWD, dir.c_str());
    if (!pid_fd) return std::unexpected(os_error("cannot open " + dir, pid_fd.error().errno_value));
    const int fd = pid_fd->get();

    ProgramFiles files;
    auto stat_text = read_file_at(fd, "stat");
    if (!stat_text) return std::unexpected(stat_text.error());
    auto proc_stat = parse_proc_stat(*stat_text);
    if (!proc_stat) return std::unexpected(proc_stat.error());
    files.start_time_ticks = proc_stat->start_time_ticks;

    auto link = read_link_at(fd, "exe");
    if (!link) {
        return std::unexpected(os_error("cannot read " + dir + "/exe", link.error().errno_value));
    }
    const ExeLink exe = parse_exe_link(*link);
    files.executable.path = exe.path;
    files.executable.deleted = exe.deleted;
    // The inode the process runs, whatever its path names now.
    files.executable.file = stat_at(fd, "exe", 0);
    files.own_user_namespace = same_user_namespace(fd, roots);

    RootWalk walk(UniqueFd(::openat(fd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC)));
    walk.walk(files.executable);

    auto maps = read_file_at(fd, "maps");
    if (!maps) {
        return std::unexpected(os_error("cannot read " + dir + "/maps", maps.error().errno_value));
    }
    auto map_files = open_dir_at(fd, "map_files");
    for (const ExecutableMapping& mapping : parse_executable_mappings(*maps)) {
        if (mapping.path == exe.path) continue;
        if (files.mapped.size() == kMaxMappedFiles) {
            files.mapped_truncated = true;
            break;
        }
        ProgramFile file{.path = mapping.path, .deleted = mapping.deleted};
        const int parent = walk.walk(file);
        if (mapping.deleted) {
            // Gone from its directory: only the mapping itself still shows its owner.
            if (map_files) file.file = stat_at(map_files->get(), mapping.range.c_str(), 0);
        } else if (parent >= 0) {
            const std::string name(name_of(mapping.path));
            file.file = stat_at(parent, name.c_str(), AT_SYMLINK_NOFOLLOW);
        }
        files.mapped.push_back(std::move(file));
    }
    return files;
}

}  // namespace gpukill

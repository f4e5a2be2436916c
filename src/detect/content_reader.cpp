#include "detect/content_reader.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <vector>

#include "sys/fd_io.hpp"
#include "sys/own_programs.hpp"

namespace gpukill::detect {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

// Reads up to `limit` bytes of `fd`, handing each chunk to `sink`; returns the count.
template <typename Sink>
Result<std::uint64_t> read_bounded(int fd, std::uint64_t limit, const std::string& what,
                                   Sink&& sink) {
    std::vector<char> buffer(static_cast<std::size_t>(std::min<std::uint64_t>(kChunkBytes, limit)));
    std::uint64_t total = 0;
    while (total < limit) {
        const std::size_t want =
            static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), limit - total));
        const ssize_t n = ::read(fd, buffer.data(), want);
        if (n < 0) {
            if (errno == EINTR) continue;
            return std::unexpected(os_error("cannot read " + what, errno));
        }
        if (n == 0) break;
        sink(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
        total += static_cast<std::uint64_t>(n);
    }
    return total;
}

bool names_nothing(int err) {
    return err == ENOENT || err == ENOTDIR || err == ENAMETOOLONG || err == ELOOP || err == EXDEV;
}

// An O_PATH descriptor for `path` resolved inside the root `root_fd` as the process
// itself would resolve it: "/", ".." and absolute symlinks stay inside that root
// (RESOLVE_IN_ROOT), so a container's "cfg -> /etc/shadow" or a chroot's
// "../../../etc/shadow" names the container's or the chroot's file, never the host's; no
// magic links (/proc/self/...) are followed. Kernels before 5.6 lack openat2, and there
// nothing is opened (ENOSYS): an unconfined lookup would reach the host's files. -1 with
// errno on failure.
int open_in_root(int root_fd, const std::string& path, std::uint64_t flags) {
    open_how how{};
    how.flags = flags | O_PATH | O_CLOEXEC;
    how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
    return static_cast<int>(::syscall(SYS_openat2, root_fd, path.c_str(), &how, sizeof how));
}

// The process's working directory as a path inside its root: the kernel's name for it
// under the kernel's name for the root, checked by resolving it in the root to the very
// directory the process is in. Empty when the working directory lies outside the root
// (a chroot entered without chdir), was removed, or was moved since: a relative path
// is then not resolved at all.
std::optional<std::string> working_directory_in_root(const std::string& process_dir, int root_fd) {
    const std::string cwd_link = process_dir + "/cwd";
    auto root = read_link_at(AT_FDCWD, (process_dir + "/root").c_str());
    auto cwd = read_link_at(AT_FDCWD, cwd_link.c_str());
    if (!root || !cwd || cwd->empty() || cwd->front() != '/') return std::nullopt;
    std::string relative;
    if (*root == "/") {
        relative = *cwd;
    } else if (*cwd == *root) {
        relative = "/";
    } else if (cwd->starts_with(*root + "/")) {
        relative = cwd->substr(root->size());
    } else {
        return std::nullopt;
    }
    UniqueFd resolved(open_in_root(root_fd, relative, O_DIRECTORY));
    struct stat seen {};
    struct stat actual {};
    if (!resolved || ::fstat(resolved.get(), &seen) != 0 ||
        ::stat(cwd_link.c_str(), &actual) != 0 || seen.st_dev != actual.st_dev ||
        seen.st_ino != actual.st_ino) {
        return std::nullopt;
    }
    return relative;
}

}  // namespace

ExecutableReader::ExecutableReader(std::string procfs, const RogueConfig& config)
    : procfs_(std::move(procfs)),
      max_bytes_(config.executable_scan.max_bytes),
      enabled_(!config.miner_signatures.empty() && config.weight(Signal::miner_signature) > 0),
      scanner_(config.miner_signatures) {
    // The real /proc, not --procfs: this is about the process running this code, and the
    // program it execs or was exec'd from.
    const auto add_own = [this](const char* path) {
        struct stat own {};
        if (::stat(path, &own) == 0) own_files_.emplace_back(own.st_dev, own.st_ino);
    };
    add_own("/proc/self/exe");
    if (const auto programs = own_programs()) {
        add_own(programs->gpukill.c_str());
        add_own(programs->interfaces.c_str());
    }
}

Result<ExecutableRead> ExecutableReader::read(pid_t pid) {
    const std::string path = fmt::format("{}/{}/exe", procfs_, pid);
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
    if (!fd) return std::unexpected(os_error("cannot open " + path, errno));
    struct stat info {};
    if (::fstat(fd.get(), &info) != 0)
        return std::unexpected(os_error("cannot stat " + path, errno));
    ExecutableRead result;
    result.file.owner_uid = info.st_uid;
    result.file.writable_by_others = (info.st_mode & (S_IWGRP | S_IWOTH)) != 0;
    if (!S_ISREG(info.st_mode)) return fail(path + " is not a regular file");
    if (std::find(own_files_.begin(), own_files_.end(), std::pair(info.st_dev, info.st_ino)) !=
        own_files_.end()) {
        return result;
    }
    const FileKey key{info.st_dev, info.st_ino, info.st_size, info.st_mtim.tv_sec,
                      info.st_mtim.tv_nsec};
    if (auto known = scanned_.find(key); known != scanned_.end()) {
        result.scan = known->second;
        return result;
    }
    scanner_.restart();
    auto read = read_bounded(fd.get(), max_bytes_, path,
                             [&](std::string_view chunk) { scanner_.feed(chunk); });
    if (!read) return std::unexpected(read.error());
    ExecutableScan scan;
    scan.signatures = scanner_.found();
    scan.bytes_read = *read;
    scan.cut = static_cast<std::uint64_t>(info.st_size) > *read;
    scanned_.emplace(key, scan);
    result.scan = std::move(scan);
    return result;
}

Result<std::optional<ArgumentFile>> read_argument_file(const std::string& procfs, pid_t pid,
                                                       std::optional<uid_t> uid,
                                                       const std::string& path,
                                                       std::uint64_t max_bytes) {
    if (path.empty()) return std::optional<ArgumentFile>();
    const std::string process_dir = fmt::format("{}/{}", procfs, pid);
    UniqueFd root(::open((process_dir + "/root").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!root) {
        if (names_nothing(errno)) return std::optional<ArgumentFile>();
        return std::unexpected(os_error("cannot open the process's root", errno));
    }
    std::string in_root = path;
    if (path.front() != '/') {
        auto cwd = working_directory_in_root(process_dir, root.get());
        if (!cwd) {
            return fail(
                fmt::format("{}: the process's working directory is not inside its root", path));
        }
        in_root = *cwd + "/" + path;
    }
    UniqueFd handle(open_in_root(root.get(), in_root, 0));
    if (!handle) {
        if (errno == ENOSYS) {
            return fail(
                "this kernel has no openat2 (Linux 5.6 and later): configuration files "
                "are not read");
        }
        if (names_nothing(errno)) return std::optional<ArgumentFile>();
        return std::unexpected(os_error("cannot look at " + path, errno));
    }
    struct stat info {};
    if (::fstat(handle.get(), &info) != 0 || !S_ISREG(info.st_mode)) {
        return std::optional<ArgumentFile>();
    }
    if (!uid || (info.st_uid != *uid && (info.st_mode & S_IROTH) == 0)) {
        return fail(fmt::format("{} is not readable by the process's owner", path));
    }
    const std::string reopen = fmt::format("/proc/self/fd/{}", handle.get());
    UniqueFd fd(::open(reopen.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
    if (!fd) return std::unexpected(os_error("cannot open " + path, errno));
    ArgumentFile file;
    file.path = path;
    auto read = read_bounded(fd.get(), max_bytes, path,
                             [&](std::string_view chunk) { file.text.append(chunk); });
    if (!read) return std::unexpected(read.error());
    file.cut = static_cast<std::uint64_t>(info.st_size) > *read;
    return std::optional<ArgumentFile>(std::move(file));
}

}  // namespace gpukill::detect

#include "detect/content_reader.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <vector>

#include "host/fd_io.hpp"
#include "host/own_programs.hpp"

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

// An O_PATH descriptor for `path` under the directory `dir` (the process's root or
// working directory). In its root, "/" and ".." in the path and in absolute symlinks
// stay inside it (RESOLVE_IN_ROOT), as the process itself would resolve them: a
// container's "/cfg -> /etc/shadow" is the container's file, never the host's. No
// magic links (/proc/self/...) are followed. Kernels before 5.6 lack openat2: plain
// openat there. -1 with errno on failure.
int open_path_under(const std::string& dir, const std::string& path, bool is_root) {
    UniqueFd base(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!base) return -1;
    open_how how{};
    how.flags = O_PATH | O_CLOEXEC;
    how.resolve = RESOLVE_NO_MAGICLINKS | (is_root ? RESOLVE_IN_ROOT : 0);
    const long fd = ::syscall(SYS_openat2, base.get(), path.c_str(), &how, sizeof how);
    if (fd >= 0 || errno != ENOSYS) return static_cast<int>(fd);
    const auto start = is_root ? path.find_first_not_of('/') : 0;
    const std::string relative = start == std::string::npos ? "." : path.substr(start);
    return ::openat(base.get(), relative.c_str(), O_PATH | O_CLOEXEC);
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
    const bool absolute = path.front() == '/';
    const std::string dir = fmt::format("{}/{}/{}", procfs, pid, absolute ? "root" : "cwd");
    UniqueFd handle(open_path_under(dir, path, absolute));
    if (!handle) {
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

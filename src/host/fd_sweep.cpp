// The fd sweep's hot loop. Kept to raw system calls on directory fds with reused
// buffers: it runs over every fd of every process on the host, each time a snapshot is
// taken, and must stay close to the cost of the minimal readlink walk (bench/).
#include "host/fd_sweep.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <expected>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "host/devfs_nodes.hpp"
#include "host/drm_pci.hpp"
#include "host/proc_maps_parse.hpp"
#include "host/proc_parse.hpp"
#include "model/parse_util.hpp"
#include "sys/fd_io.hpp"

namespace gpukill {
namespace {

constexpr std::size_t kDentsBufferSize = 64 * 1024;
// procfs hands out /proc/PID/maps a page of lines per read(), however large the buffer;
// this holds one page beside the unfinished line of the one before (a line is at most
// PATH_MAX and its fields).
constexpr std::size_t kMapsBufferSize = 16 * 1024;

// Directory entries from getdents64, decoded in place from a caller-owned buffer.
class DentsReader {
  public:
    explicit DentsReader(char* buffer) : buffer_(buffer) {}

    // Calls fn(name) for every entry of dir_fd. Returns 0, or the errno that stopped it.
    template <class Fn>
    int for_each(int dir_fd, Fn&& fn) {
        while (true) {
            const ssize_t n = ::getdents64(dir_fd, buffer_, kDentsBufferSize);
            if (n == 0) return 0;
            if (n < 0) {
                if (errno == EINTR) continue;
                return errno;
            }
            for (ssize_t offset = 0; offset < n;) {
                const auto* entry = reinterpret_cast<const dirent64*>(buffer_ + offset);
                offset += entry->d_reclen;
                fn(entry->d_name);
            }
        }
    }

  private:
    char* buffer_;
};

// A process directory's name as a PID: canonical decimal, positive.
std::optional<pid_t> pid_from_name(const char* name) {
    if (name[0] < '1' || name[0] > '9') return std::nullopt;  // ".", "self", "sys", ...
    return text::parse_int<pid_t>(name);
}

constexpr std::size_t kMaxNamedUnseen = 8;

void name_unseen(std::vector<pid_t>& pids, pid_t pid) {
    if (pids.size() < kMaxNamedUnseen) pids.push_back(pid);
}

// Why a process's fds could not be read, in the counter that says so.
void count_unread(SweepResult& result, pid_t pid, int errno_value) {
    if (errno_value == EACCES || errno_value == EPERM) {
        ++result.processes_denied;
        name_unseen(result.denied_pids, pid);
    } else if (errno_value == ENOENT || errno_value == ESRCH) {
        ++result.processes_vanished;  // exited since procfs was listed
    } else {
        ++result.processes_unreadable;  // EMFILE, ENOMEM, EIO: our trouble, not theirs
        name_unseen(result.unreadable_pids, pid);
    }
}

// "PID/fd" into out (NUL-terminated); false when the name is implausibly long.
bool fd_dir_path(const char* pid_name, char (&out)[32]) {
    const std::size_t len = std::strlen(pid_name);
    if (len + sizeof "/fd" > sizeof out) return false;
    std::memcpy(out, pid_name, len);
    std::memcpy(out + len, "/fd", sizeof "/fd");
    return true;
}

// The devfs root as the kernel would print it in an fd link, without a trailing '/'.
std::string canonical_devfs(const std::string& devfs) {
    std::unique_ptr<char, decltype(&::free)> resolved(::realpath(devfs.c_str(), nullptr), &::free);
    std::string root = resolved ? std::string(resolved.get()) : devfs;
    while (!root.empty() && root.back() == '/') root.pop_back();
    return root;
}

// The index of the node with this path in `nodes`, or nodes.size() when absent.
std::size_t index_of(const std::vector<DeviceNode>& nodes, std::string_view relative_path) {
    return static_cast<std::size_t>(
        std::find_if(nodes.begin(), nodes.end(),
                     [&](const DeviceNode& n) { return n.relative_path == relative_path; }) -
        nodes.begin());
}

bool is_drm_node(DeviceNodeKind kind) {
    return kind == DeviceNodeKind::dri_card || kind == DeviceNodeKind::dri_render;
}

// Fills pci_bus_id of every DRM node held, one sysfs lookup per node name.
void resolve_drm_parents(const HostRoots& roots, std::vector<DeviceHolder>& holders) {
    std::unordered_map<std::string, std::optional<std::string>> cache;
    for (auto& holder : holders) {
        for (auto& node : holder.nodes) {
            if (!is_drm_node(node.kind)) continue;
            const auto slash = node.relative_path.rfind('/');
            const std::string name = node.relative_path.substr(slash + 1);
            auto it = cache.find(name);
            if (it == cache.end()) {
                it = cache.emplace(name, resolve_drm_pci_bus_id(roots, name)).first;
            }
            node.pci_bus_id = it->second;
        }
    }
}

}  // namespace

namespace {

// The start time of the process whose /proc/PID/fd directory `fd_dir` is.
// The start time, or the errno that prevented reading it (ESRCH: gone meanwhile).
std::expected<std::uint64_t, int> start_time_beside(int fd_dir) {
    const int stat_fd = ::openat(fd_dir, "../stat", O_RDONLY | O_CLOEXEC);
    if (stat_fd < 0) return std::unexpected(errno);
    const UniqueFd owner(stat_fd);
    char text[1024];
    const ssize_t n = ::read(stat_fd, text, sizeof text - 1);
    if (n < 0) return std::unexpected(errno);
    if (n == 0) return std::unexpected(ESRCH);
    auto stat = parse_proc_stat(std::string_view(text, static_cast<std::size_t>(n)));
    if (!stat) return std::unexpected(ESRCH);  // a reaped process reads as empty or cut
    return stat->start_time_ticks;
}

}  // namespace

namespace {

// One sweep's working state: the open procfs, the devfs prefix, and the buffers every
// process's scan reuses (two listings are open at once: procfs, and one process's fds).
class HolderScanner {
  public:
    HolderScanner(const HostRoots& roots, SweepResult& result)
        : result_(result),
          devfs_(canonical_devfs(roots.devfs)),
          prefix_(devfs_ + "/"),
          proc_buffer_(std::make_unique<char[]>(kDentsBufferSize)),
          fd_buffer_(std::make_unique<char[]>(kDentsBufferSize)),
          maps_buffer_(std::make_unique<char[]>(kMapsBufferSize)),
          proc_reader_(proc_buffer_.get()),
          fd_reader_(fd_buffer_.get()) {
        auto proc = open_dir_at(AT_FDCWD, roots.procfs.c_str());
        if (!proc) {
            result_.error = os_error("cannot list " + roots.procfs, proc.error().errno_value);
            return;
        }
        proc_ = std::move(*proc);
    }

    bool opened() const { return static_cast<bool>(proc_); }

    // The PIDs procfs lists, by name; `listing_errno` is 0 when the listing completed.
    std::vector<std::string> list(int& listing_errno) {
        std::vector<std::string> names;
        listing_errno = proc_reader_.for_each(proc_.get(), [&](const char* pid_name) {
            if (pid_from_name(pid_name)) names.emplace_back(pid_name);
        });
        return names;
    }

    // One process by its PID's decimal name: counted as scanned, and as a holder, denied
    // or unreadable as it turns out; a process that is gone is only counted as vanished.
    void scan(const char* pid_name) {
        const auto pid = pid_from_name(pid_name);
        char path[32];
        if (!pid || !fd_dir_path(pid_name, path)) return;
        ++result_.processes_scanned;

        const int fd_dir = ::openat(proc_.get(), path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd_dir < 0) {
            count_unread(result_, *pid, errno);
            return;
        }
        const UniqueFd fd_dir_owner(fd_dir);

        nodes_.clear();
        drm_fds_.clear();
        // The directory can be listed while its links cannot be read (EACCES on another
        // user's process without ptrace rights, as for PID 1 in a container): that
        // process was not seen either, and is counted as such.
        int link_errno = 0;
        std::size_t fds_listed = 0;
        const int fd_errno = fd_reader_.for_each(fd_dir, [&](const char* fd_name) {
            if (fd_name[0] == '.') return;
            ++fds_listed;
            const ssize_t n = ::readlinkat(fd_dir, fd_name, link_, sizeof link_);
            if (n < 0 && errno != ENOENT && link_errno == 0) link_errno = errno;
            // Closed since the listing, or a path too long to be a device node.
            if (n <= 0 || static_cast<std::size_t>(n) >= sizeof link_) return;
            const std::string_view target(link_, static_cast<std::size_t>(n));
            std::optional<DeviceNode> node;
            if (target.starts_with(prefix_)) {
                node = classify_device_path(target, devfs_);
            } else if (relocated_ && target.starts_with("/dev/")) {
                node = relocated_node(fd_dir, fd_name, target);
            } else {
                return;  // the common case: not a device node
            }
            if (!node) return;
            const std::size_t index = hold(std::move(*node), &NodeAccess::descriptor);
            // DRM fds are remembered for their fdinfo (the driver's per-client usage).
            if (!is_drm_node(nodes_[index].kind)) return;
            if (auto fd = text::parse_int<int>(fd_name)) drm_fds_.push_back(DrmFd{*fd, index});
        });
        if (fd_errno != 0) {
            // Typically ENOENT: the process exited while its fds were listed, and so
            // holds nothing any more; its partial list is dropped.
            count_unread(result_, *pid, fd_errno);
            return;
        }
        // A node may be held by a mapping alone: the descriptor closed after mmap, or a
        // child forked after that (fuser's m).
        const int maps_errno = scan_mappings(fd_dir, fds_listed);
        if (link_errno != 0 || maps_errno != 0) {
            count_unread(result_, *pid, link_errno != 0 ? link_errno : maps_errno);
        }
        if (nodes_.empty()) return;
        // Only holders pay for this: stat through the fd directory's parent stays bound
        // to the process whose fds were read, so a reused PID cannot lend its identity.
        auto start_time = start_time_beside(fd_dir);
        if (!start_time) {
            // Out of descriptors here hid every holder while reporting a complete view.
            count_unread(result_, *pid, start_time.error());
            return;
        }
        result_.holders.push_back(
            DeviceHolder{*pid, std::move(nodes_), *start_time, std::move(drm_fds_)});
        nodes_ = {};
        drm_fds_ = {};
    }

  private:
    // The node in this process's list (added once, in the order first seen) and how it is
    // held; its index in nodes_.
    std::size_t hold(DeviceNode node, bool NodeAccess::*how) {
        const std::size_t index = index_of(nodes_, node.relative_path);
        if (index == nodes_.size()) nodes_.push_back(std::move(node));
        nodes_[index].access.*how = true;
        return index;
    }

    // The GPU nodes the process beside `fd_dir` maps, from its /proc/PID/maps, added to
    // nodes_; 0, or the errno that kept them from being read. A process with no fds at all
    // is looked at only if it has an executable: a kernel thread has neither, nor memory.
    // A line costs a few memchr calls unless its path is under the device root or (on a
    // relocated root) under /dev: libraries and anonymous memory are passed over by text.
    int scan_mappings(int fd_dir, std::size_t fds_listed) {
        if (fds_listed == 0 && ::readlinkat(fd_dir, "../exe", link_, sizeof link_) < 0 &&
            errno == ENOENT) {
            return 0;
        }
        const int maps = ::openat(fd_dir, "../maps", O_RDONLY | O_CLOEXEC);
        if (maps < 0) return errno == ENOENT || errno == ESRCH ? 0 : errno;  // gone: holds none
        const UniqueFd maps_owner(maps);
        char* const buffer = maps_buffer_.get();
        std::size_t kept = 0;   // an unfinished line at the start of the buffer
        bool skipping = false;  // inside a line longer than the buffer (not a device's)
        for (;;) {
            const ssize_t n = ::read(maps, buffer + kept, kMapsBufferSize - kept);
            if (n < 0) {
                if (errno == EINTR) continue;
                return errno == ESRCH ? 0 : errno;
            }
            if (n == 0) break;
            const std::string_view text(buffer, kept + static_cast<std::size_t>(n));
            std::size_t begin = 0;
            for (std::size_t end; (end = text.find('\n', begin)) != std::string_view::npos;
                 begin = end + 1) {
                if (!skipping) mapping_line(fd_dir, text.substr(begin, end - begin));
                skipping = false;
            }
            kept = text.size() - begin;
            if (kept == kMapsBufferSize) {
                kept = 0;
                skipping = true;
            }
            std::memmove(buffer, buffer + begin, kept);
        }
        if (kept > 0 && !skipping) mapping_line(fd_dir, std::string_view(buffer, kept));
        return 0;
    }

    void mapping_line(int fd_dir, std::string_view line) {
        const std::string_view path = maps_line_path(line);
        std::optional<DeviceNode> node;
        if (path.starts_with(prefix_)) {
            node = classify_device_path(path, devfs_);
        } else if (relocated_ && path.starts_with("/dev/")) {
            node = relocated_mapping(fd_dir, line, path);
        } else {
            return;
        }
        if (node) hold(std::move(*node), &NodeAccess::mapping);
    }

    // A mapping of a /dev/... path while the device root is elsewhere: as relocated_node
    // for a link, the file decides which node of the root it is. The line names the mapped
    // file (the root's own node when the holder sees it through a bind mount, or a
    // simulator's regular file); another node for the same device (a container's own
    // /dev) is looked at through /proc/PID/map_files (CAP_SYS_ADMIN); the path's text
    // decides only when neither can say.
    std::optional<DeviceNode> relocated_mapping(int fd_dir, std::string_view line,
                                                std::string_view path) {
        auto named = classify_device_path(path, "/dev");
        if (!named) return std::nullopt;
        const auto entry = parse_maps_line(line);
        if (!entry) return std::nullopt;
        const std::vector<DevfsNode>& candidates = root_nodes();
        const FileIdentity mapped{entry->device, static_cast<ino_t>(entry->inode)};
        for (const DevfsNode& candidate : candidates) {
            if (candidate.file == mapped) return candidate.node;
        }
        std::string map_file = "../map_files/";
        map_file += entry->range;
        struct stat info {};
        if (::fstatat(fd_dir, map_file.c_str(), &info, 0) != 0) return named;
        const FileIdentity identity = identity_of(info);
        for (const DevfsNode& candidate : candidates) {
            if (candidate.identity == identity) return candidate.node;
        }
        return std::nullopt;  // a /dev file that is none of this root's GPU nodes
    }

    const std::vector<DevfsNode>& root_nodes() {
        if (!relocated_nodes_) relocated_nodes_ = list_gpu_device_nodes(devfs_);
        return *relocated_nodes_;
    }

    // A /dev/... link of a holder while the device root is elsewhere (a container with
    // the host's /dev at /host/dev): the link names the node in the holder's own mount
    // namespace. Only a link whose text names a GPU node (by the drivers' names, as on a
    // host root) is looked at further: /dev/null, a tty or /dev/urandom, which nearly
    // every process holds, cost no more than on a host root (an fstatat each made the
    // benchmark's sweep 15 % dearer, docs/BENCHMARKS.md). Then what the fd refers
    // to decides which node it is (the device number, or the inode of a simulator's
    // node), so a container's renumbered /dev/nvidia0 counts as the root's node it is;
    // the link's text decides only when the file cannot be stat'ed.
    std::optional<DeviceNode> relocated_node(int fd_dir, const char* fd_name,
                                             std::string_view target) {
        auto named = classify_device_path(target, "/dev");
        if (!named) return std::nullopt;
        struct stat info {};
        if (::fstatat(fd_dir, fd_name, &info, 0) != 0) return named;
        const FileIdentity identity = identity_of(info);
        for (const DevfsNode& candidate : root_nodes()) {
            if (candidate.identity == identity) return candidate.node;
        }
        return std::nullopt;  // a /dev file that is none of this root's GPU nodes
    }

    SweepResult& result_;
    std::string devfs_;
    std::string prefix_;
    bool relocated_ = devfs_ != "/dev";
    std::optional<std::vector<DevfsNode>> relocated_nodes_;
    UniqueFd proc_;
    std::unique_ptr<char[]> proc_buffer_;
    std::unique_ptr<char[]> fd_buffer_;
    std::unique_ptr<char[]> maps_buffer_;
    DentsReader proc_reader_;
    DentsReader fd_reader_;
    char link_[PATH_MAX];
    std::vector<DeviceNode> nodes_;
    std::vector<DrmFd> drm_fds_;
};

// One thread's share of the sweep added to the whole: counts summed, holders joined, the
// PIDs named in warnings kept to the first few.
void merge_into(SweepResult& whole, SweepResult&& part) {
    whole.processes_scanned += part.processes_scanned;
    whole.processes_denied += part.processes_denied;
    whole.processes_vanished += part.processes_vanished;
    whole.processes_unreadable += part.processes_unreadable;
    for (pid_t pid : part.denied_pids) name_unseen(whole.denied_pids, pid);
    for (pid_t pid : part.unreadable_pids) name_unseen(whole.unreadable_pids, pid);
    for (DeviceHolder& holder : part.holders) whole.holders.push_back(std::move(holder));
    if (!whole.error && part.error) whole.error = std::move(part.error);
}

// Below this many processes one thread is as fast: starting threads costs more than
// it saves.
constexpr std::size_t kProcessesPerExtraThread = 256;
// What a thread takes from the shared counter at a time.
constexpr std::size_t kPidsPerChunk = 32;

std::size_t sweep_threads(std::size_t processes) {
    const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
    return std::clamp<std::size_t>(processes / kProcessesPerExtraThread, 1, cores);
}

void finish(const HostRoots& roots, SweepResult& result) {
    std::sort(result.holders.begin(), result.holders.end(),
              [](const DeviceHolder& a, const DeviceHolder& b) { return a.pid < b.pid; });
    resolve_drm_parents(roots, result.holders);
}

}  // namespace

SweepResult sweep_device_holders(const HostRoots& roots) {
    SweepResult result;
    std::vector<std::string> names;
    {
        HolderScanner lister(roots, result);
        if (!lister.opened()) return result;
        int list_errno = 0;
        names = lister.list(list_errno);
        if (list_errno != 0) result.error = os_error("cannot list " + roots.procfs, list_errno);
    }
    // One thread per core, each taking the next chunk of PIDs from a shared counter: the
    // sweep is syscall-bound, a chunk of neighbouring PIDs keeps a thread on neighbouring
    // /proc entries, and a thread that meets a job's many-fd workers simply takes fewer
    // chunks. Each process's fds are read by one thread alone, so nothing is shared but
    // the counter and the result, joined at the end.
    const std::size_t threads = sweep_threads(names.size());
    std::vector<SweepResult> parts(threads);
    std::atomic<std::size_t> next_chunk{0};
    const auto sweep_share = [&](std::size_t share) {
        HolderScanner scanner(roots, parts[share]);
        if (!scanner.opened()) return;  // the others take its chunks
        for (;;) {
            const std::size_t begin =
                next_chunk.fetch_add(kPidsPerChunk, std::memory_order_relaxed);
            if (begin >= names.size()) return;
            const std::size_t end = std::min(names.size(), begin + kPidsPerChunk);
            for (std::size_t i = begin; i < end; ++i) scanner.scan(names[i].c_str());
        }
    };
    {
        std::vector<std::jthread> workers;
        for (std::size_t share = 1; share < threads; ++share)
            workers.emplace_back(sweep_share, share);
        sweep_share(0);
    }
    for (SweepResult& part : parts) merge_into(result, std::move(part));
    finish(roots, result);
    return result;
}

SweepResult sweep_device_holders_of(const HostRoots& roots, const std::vector<pid_t>& pids) {
    SweepResult result;
    HolderScanner scanner(roots, result);
    if (!scanner.opened()) return result;
    for (pid_t pid : std::set<pid_t>(pids.begin(), pids.end())) {
        if (pid <= 0) continue;
        scanner.scan(std::to_string(pid).c_str());
    }
    finish(roots, result);
    return result;
}

}  // namespace gpukill

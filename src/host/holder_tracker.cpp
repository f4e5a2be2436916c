#include "host/holder_tracker.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/filter.h>
#include <linux/netlink.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <string_view>
#include <system_error>
#include <vector>

#include "host/devfs_nodes.hpp"
#include "host/proc_parse.hpp"
#include "host/proc_reader.hpp"
#include "model/parse_util.hpp"

namespace gpukill {
namespace {

// The GPU device nodes under `devfs` (the ones classify_device_path knows), by path.
std::vector<std::string> gpu_device_nodes(const std::string& devfs) {
    std::vector<std::string> paths;
    for (DevfsNode& node : list_gpu_device_nodes(devfs)) paths.push_back(std::move(node.path));
    return paths;
}

// Watches every node directory under `devfs` that exists for new entries, recording each
// watch's directory; the number watched. A directory that appears later is added when its
// creation is seen.
int watch_node_directories(int inotify, const std::string& devfs,
                           std::map<int, std::string>& directories) {
    int watched = 0;
    for (const char* sub : kGpuNodeDirectories) {
        const std::string dir = devfs + sub;
        const int wd = ::inotify_add_watch(inotify, dir.c_str(),
                                           IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_ONLYDIR);
        if (wd >= 0) {
            directories[wd] = dir;
            ++watched;
        }
    }
    return watched;
}

// Whether an entry made or removed in a watched directory concerns GPUs: a node
// classify_device_path knows, or one of the node directories themselves (dri/ made when
// the first DRM GPU appears). /dev's other churn (ttys, loop devices, shm) is not.
bool concerns_gpus(const std::string& directory, std::string_view name, bool is_directory,
                   const std::string& canonical_devfs) {
    const std::string path = directory + "/" + std::string(name);
    if (is_directory) {
        for (const char* sub : kGpuNodeDirectories) {
            if (*sub != '\0' && path == canonical_devfs + sub) return true;
        }
        return false;
    }
    return classify_device_path(path, canonical_devfs).has_value();
}

bool same_holding(const DeviceHolder& a, const DeviceHolder& b) {
    if (a.pid != b.pid || a.start_time_ticks != b.start_time_ticks ||
        a.nodes.size() != b.nodes.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.nodes.size(); ++i) {
        if (a.nodes[i].relative_path != b.nodes[i].relative_path) return false;
    }
    return true;
}

// A repair also rescans this many PIDs allocated before the frame's mark: a process
// created just before it whose event was still on its way.
constexpr pid_t kPidMarkSlack = 256;

// The PID the kernel handed out last, and where allocation wraps (/proc/sys/kernel).
std::optional<pid_t> read_pid_number(const std::string& path) {
    const auto text = read_text_file(path);
    if (!text) return std::nullopt;
    const auto value = text::parse_int<long>(text::trim(*text));
    if (!value || *value <= 0 || *value > std::numeric_limits<pid_t>::max()) return std::nullopt;
    return static_cast<pid_t>(*value);
}

// Whether `pid` was allocated after `base` and up to `last`, in the kernel's cyclic
// order (allocation wraps from pid_max back to the bottom).
bool allocated_between(pid_t pid, pid_t base, pid_t last) {
    if (base <= last) return pid > base && pid <= last;
    return pid > base || pid <= last;  // wrapped
}

// Sets the connector socket's receive buffer: past net.core.rmem_max with
// SO_RCVBUFFORCE (CAP_NET_ADMIN, which the connector needs anyway), else up to it. The
// size the kernel granted (it doubles the request for its bookkeeping).
std::size_t grow_receive_buffer(int fd, int size) {
    if (::setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) != 0) {
        ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    }
    int granted = 0;
    socklen_t length = sizeof granted;
    if (::getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &granted, &length) != 0) return 0;
    return static_cast<std::size_t>(std::max(granted, 0));
}

// A 32-bit field as a classic BPF absolute load sees it: in network byte order.
constexpr std::uint32_t as_loaded(std::uint32_t value) {
    return std::endian::native == std::endian::little ? __builtin_bswap32(value) : value;
}

// Where a connector message's fields are: nlmsghdr, cn_msg's header, then proc_event.
constexpr std::uint32_t kEventAt = NLMSG_HDRLEN + sizeof(cn_msg);
constexpr std::uint32_t kWhatAt = kEventAt + offsetof(proc_event, what);
constexpr std::uint32_t kDataAt = kEventAt + offsetof(proc_event, event_data);
// The union's members are unnamed types in C++: named through decltype.
using ForkEvent = decltype(proc_event{}.event_data.fork);
using ExitEvent = decltype(proc_event{}.event_data.exit);
constexpr std::uint32_t kForkChildPidAt = kDataAt + offsetof(ForkEvent, child_pid);
constexpr std::uint32_t kForkChildTgidAt = kDataAt + offsetof(ForkEvent, child_tgid);
constexpr std::uint32_t kExitPidAt = kDataAt + offsetof(ExitEvent, process_pid);
constexpr std::uint32_t kExitTgidAt = kDataAt + offsetof(ExitEvent, process_tgid);
static_assert(kWhatAt == 36 && kForkChildPidAt == 60 && kExitTgidAt == 56);

// Drops, in the kernel, the events drain_connector ignores: a thread's fork or exit
// (most of a busy node's events: every worker thread of every process) and kinds other
// than fork, exec, uid and exit (comm, sid, gid, ptrace, coredump). What is dropped here
// never fills the socket's buffer. Acknowledgements (PROC_EVENT_NONE) pass.
bool filter_process_events(int fd) {
    constexpr std::uint32_t kKeep = 0xffffffff;
    // Instruction indices are in the comments: jumps count the instructions skipped.
    static const sock_filter program[] = {
        /* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kWhatAt),
        /* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, as_loaded(proc_event::PROC_EVENT_FORK), 5, 0),
        /* 2 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, as_loaded(proc_event::PROC_EVENT_EXIT), 8, 0),
        /* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, as_loaded(proc_event::PROC_EVENT_EXEC), 12, 0),
        /* 4 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, as_loaded(proc_event::PROC_EVENT_UID), 11, 0),
        /* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, as_loaded(proc_event::PROC_EVENT_NONE), 10, 0),
        /* 6 */ BPF_STMT(BPF_RET | BPF_K, 0),
        // fork: a process (its child is its own thread group leader), not a thread
        /* 7 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kForkChildPidAt),
        /* 8 */ BPF_STMT(BPF_MISC | BPF_TAX, 0),
        /* 9 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kForkChildTgidAt),
        /* 10 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_X, 0, 5, 4),
        // exit: of a thread group leader
        /* 11 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kExitPidAt),
        /* 12 */ BPF_STMT(BPF_MISC | BPF_TAX, 0),
        /* 13 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kExitTgidAt),
        /* 14 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_X, 0, 1, 0),
        /* 15 */ BPF_STMT(BPF_RET | BPF_K, 0),
        /* 16 */ BPF_STMT(BPF_RET | BPF_K, kKeep),
    };
    const sock_fprog filter{.len = static_cast<unsigned short>(std::size(program)),
                            .filter = const_cast<sock_filter*>(program)};
    return ::setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &filter, sizeof filter) == 0;
}

// Subscribes a connector socket to process events (PROC_CN_MCAST_LISTEN).
bool listen_for_process_events(int fd) {
    // nlmsghdr, then cn_msg (whose data is a flexible array), then the operation.
    constexpr std::size_t size = NLMSG_LENGTH(sizeof(cn_msg) + sizeof(proc_cn_mcast_op));
    alignas(nlmsghdr) char request[NLMSG_SPACE(sizeof(cn_msg) + sizeof(proc_cn_mcast_op))] = {};
    auto* header = reinterpret_cast<nlmsghdr*>(request);
    header->nlmsg_len = size;
    header->nlmsg_type = NLMSG_DONE;
    header->nlmsg_pid = 0;
    auto* message = static_cast<cn_msg*>(NLMSG_DATA(header));
    message->id.idx = CN_IDX_PROC;
    message->id.val = CN_VAL_PROC;
    message->len = sizeof(proc_cn_mcast_op);
    const proc_cn_mcast_op op = PROC_CN_MCAST_LISTEN;
    std::memcpy(message->data, &op, sizeof op);
    return ::send(fd, request, size, 0) == static_cast<ssize_t>(size);
}

}  // namespace

std::unique_ptr<HolderTracker> HolderTracker::start(const HostRoots& roots,
                                                    std::size_t full_sweep_every,
                                                    std::string& why_not,
                                                    int receive_buffer_bytes) {
    auto tracker = open_sources(roots, full_sweep_every, why_not, receive_buffer_bytes);
    if (tracker) tracker->full_sweep();  // after marking: an open during it is an event
    return tracker;
}

std::optional<HolderTracker::Sources> HolderTracker::probe(const HostRoots& roots,
                                                           std::string& why_not) {
    const auto tracker = open_sources(roots, 1, why_not, kDefaultReceiveBuffer);
    if (!tracker) return std::nullopt;
    return Sources{.receive_buffer_bytes = tracker->receive_buffer_bytes_,
                   .events_filtered = tracker->events_filtered_};
}

std::unique_ptr<HolderTracker> HolderTracker::open_sources(const HostRoots& roots,
                                                           std::size_t full_sweep_every,
                                                           std::string& why_not,
                                                           int receive_buffer_bytes) {
    UniqueFd fanotify(::fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK,
                                      O_RDONLY | O_CLOEXEC | O_LARGEFILE));
    if (!fanotify) {
        why_not = std::string("fanotify: ") + std::strerror(errno) + " (needs CAP_SYS_ADMIN)";
        return nullptr;
    }
    const std::vector<std::string> nodes = gpu_device_nodes(roots.devfs);
    if (nodes.empty()) {
        why_not = "no GPU device nodes under " + roots.devfs;
        return nullptr;
    }
    // Watched for new nodes before the existing ones are marked: a node that appears
    // in between is then a hotplug event, not a miss.
    // Watched by its canonical path: the one classify_device_path judges names against.
    std::error_code unresolved;
    const std::string canonical_devfs =
        std::filesystem::weakly_canonical(roots.devfs, unresolved).string();
    std::map<int, std::string> directories;
    UniqueFd inotify(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
    if (!inotify || watch_node_directories(inotify.get(), canonical_devfs, directories) == 0) {
        why_not = "inotify cannot watch " + roots.devfs +
                  " for new device nodes: " + std::strerror(errno);
        return nullptr;
    }
    for (const std::string& node : nodes) {
        if (!mark_node(fanotify.get(), node)) {
            why_not = "fanotify cannot watch " + node + ": " + std::strerror(errno);
            return nullptr;
        }
    }
    UniqueFd connector(
        ::socket(PF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_CONNECTOR));
    sockaddr_nl address{};
    address.nl_family = AF_NETLINK;
    address.nl_groups = CN_IDX_PROC;
    address.nl_pid = 0;  // the kernel assigns one
    if (!connector ||
        ::bind(connector.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        !listen_for_process_events(connector.get())) {
        why_not =
            std::string("process connector: ") + std::strerror(errno) + " (needs CAP_NET_ADMIN)";
        return nullptr;
    }
    const std::size_t receive_buffer = grow_receive_buffer(connector.get(), receive_buffer_bytes);
    const bool filtered = filter_process_events(connector.get());
    std::unique_ptr<HolderTracker> tracker(
        new HolderTracker(roots, full_sweep_every, std::move(fanotify), std::move(connector),
                          std::move(inotify), canonical_devfs, std::move(directories)));
    tracker->receive_buffer_bytes_ = receive_buffer;
    tracker->events_filtered_ = filtered;
    tracker->frame_mark_ = tracker->last_pid_allocated();
    return tracker;
}

HolderTracker::HolderTracker(const HostRoots& roots, std::size_t full_sweep_every,
                             UniqueFd fanotify, UniqueFd connector, UniqueFd inotify,
                             std::string canonical_devfs, std::map<int, std::string> directories)
    : roots_(roots),
      full_sweep_every_(std::max<std::size_t>(full_sweep_every, 1)),
      fanotify_(std::move(fanotify)),
      connector_(std::move(connector)),
      inotify_(std::move(inotify)),
      canonical_devfs_(std::move(canonical_devfs)),
      watched_directories_(std::move(directories)) {}

bool HolderTracker::mark_node(int fanotify, const std::string& node) {
    return ::fanotify_mark(fanotify, FAN_MARK_ADD, FAN_OPEN | FAN_CLOSE_WRITE | FAN_CLOSE_NOWRITE,
                           AT_FDCWD, node.c_str()) == 0;
}

void HolderTracker::watch_new_nodes() {
    alignas(inotify_event) char buffer[4096];
    bool changed = false;
    for (;;) {
        const ssize_t n = ::read(inotify_.get(), buffer, sizeof buffer);
        if (n <= 0) {
            if (n < 0 && errno == EINTR) continue;
            break;  // EAGAIN: drained
        }
        for (ssize_t at = 0; at < n;) {
            const auto* event = reinterpret_cast<const inotify_event*>(buffer + at);
            at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
            if (event->mask & IN_Q_OVERFLOW) {
                events_lost_ = true;
                changed = true;
                continue;
            }
            const auto directory = watched_directories_.find(event->wd);
            if (event->len == 0 || directory == watched_directories_.end()) continue;
            if (concerns_gpus(directory->second, event->name, (event->mask & IN_ISDIR) != 0,
                              canonical_devfs_)) {
                changed = true;
            } else {
                ++unrelated_node_events_;
            }
        }
    }
    if (!changed) return;
    // A node directory that did not exist at the start (the first DRM GPU's dri/).
    watch_node_directories(inotify_.get(), canonical_devfs_, watched_directories_);
    // Every node marked again: marking a marked inode changes nothing, and a path
    // removed and made again is a new inode that must be marked.
    for (const std::string& node : gpu_device_nodes(roots_.devfs)) mark_node(fanotify_.get(), node);
    // Whoever opened a new node before its mark was not reported: only a sweep finds them.
    events_lost_ = true;
}

void HolderTracker::drain_fanotify(std::set<pid_t>& dirty) {
    alignas(fanotify_event_metadata) char buffer[8192];
    for (;;) {
        const ssize_t n = ::read(fanotify_.get(), buffer, sizeof buffer);
        if (n <= 0) {
            if (n < 0 && errno == EINTR) continue;
            break;  // EAGAIN: drained
        }
        auto* event = reinterpret_cast<fanotify_event_metadata*>(buffer);
        ssize_t left = n;
        while (FAN_EVENT_OK(event, left)) {
            if (event->mask & FAN_Q_OVERFLOW) {
                events_lost_ = true;
                overflowed_ = true;
            }
            if (event->fd >= 0) ::close(event->fd);
            if (event->pid > 0) dirty.insert(event->pid);
            event = FAN_EVENT_NEXT(event, left);
        }
    }
}

void HolderTracker::drain_connector(std::set<pid_t>& dirty) {
    const auto may_hold = [&](pid_t pid) { return holders_.contains(pid) || dirty.contains(pid); };
    alignas(nlmsghdr) char buffer[8192];
    for (;;) {
        ssize_t n = ::recv(connector_.get(), buffer, sizeof buffer, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == ENOBUFS) {  // the kernel dropped events: a repair rescans
                process_events_lost_ = true;
                overflowed_ = true;
                continue;
            }
            break;  // EAGAIN: drained
        }
        if (n == 0) break;
        for (auto* header = reinterpret_cast<nlmsghdr*>(buffer); NLMSG_OK(header, n);
             header = NLMSG_NEXT(header, n)) {
            if (header->nlmsg_type != NLMSG_DONE) continue;
            const auto* message = static_cast<const cn_msg*>(NLMSG_DATA(header));
            if (message->id.idx != CN_IDX_PROC) continue;
            // The event follows a 20-byte header: copied out, it is aligned.
            proc_event copy{};
            std::memcpy(&copy, message->data, std::min<std::size_t>(message->len, sizeof copy));
            const proc_event* event = &copy;
            switch (event->what) {
                case proc_event::PROC_EVENT_FORK: {
                    const auto& fork = event->event_data.fork;
                    // A new process (not a thread) of a holder inherited its fds; of a
                    // process that just opened a node (dirty) too: it may have forked
                    // before this frame saw it as a holder.
                    if (fork.child_pid == fork.child_tgid && may_hold(fork.parent_tgid)) {
                        dirty.insert(fork.child_tgid);
                    }
                    break;
                }
                case proc_event::PROC_EVENT_EXEC:
                    if (may_hold(event->event_data.exec.process_tgid)) {
                        dirty.insert(event->event_data.exec.process_tgid);
                    }
                    details_changed_.insert(event->event_data.exec.process_tgid);
                    break;
                case proc_event::PROC_EVENT_UID:
                    details_changed_.insert(event->event_data.id.process_tgid);
                    break;
                case proc_event::PROC_EVENT_EXIT: {
                    const auto& exit = event->event_data.exit;
                    if (exit.process_pid == exit.process_tgid && may_hold(exit.process_tgid)) {
                        dirty.insert(exit.process_tgid);
                    }
                    break;
                }
                default:
                    break;
            }
        }
    }
}

void HolderTracker::full_sweep() {
    SweepResult sweep = sweep_device_holders(roots_);
    std::map<pid_t, DeviceHolder> found;
    for (DeviceHolder& holder : sweep.holders) {
        const pid_t pid = holder.pid;
        found.emplace(pid, std::move(holder));
    }
    sweep.holders.clear();
    if (full_sweeps_ > 0) {
        last_check_matched_ = found.size() == holders_.size() &&
                              std::equal(found.begin(), found.end(), holders_.begin(),
                                         [](const auto& a, const auto& b) {
                                             return same_holding(a.second, b.second);
                                         });
    }
    holders_ = std::move(found);
    last_full_ = std::move(sweep);
    frames_since_sweep_ = 0;
    last_full_sweep_at_ = std::chrono::steady_clock::now();
    events_lost_ = false;
    process_events_lost_ = false;
    ++full_sweeps_;
}

std::optional<pid_t> HolderTracker::last_pid_allocated() const {
    return read_pid_number(roots_.procfs + "/sys/kernel/ns_last_pid");
}

void HolderTracker::repair(std::set<pid_t> dirty) {
    const auto pids = list_pids(roots_);
    const auto last = last_pid_allocated();
    const auto pid_max = read_pid_number(roots_.procfs + "/sys/kernel/pid_max");
    if (!pids || !last || !pid_max || !frame_mark_) {
        full_sweep();  // nothing says which processes are new: read them all
        swept_in_full_ = true;
        return;
    }
    pid_t base = *frame_mark_ - kPidMarkSlack;
    if (base < 1) base += *pid_max;
    // A holder may have exec'd, changed its uid or exited unreported: read it again.
    for (const auto& [pid, holder] : holders_) {
        dirty.insert(pid);
        details_changed_.insert(pid);
    }
    // And every process created since the last frame began: a lost fork is among them.
    for (const pid_t pid : *pids) {
        if (allocated_between(pid, base, *last)) {
            dirty.insert(pid);
            details_changed_.insert(pid);
        }
    }
    rescan(dirty);
    process_events_lost_ = false;
    swept_in_full_ = false;
    ++repairs_;
}

SweepResult HolderTracker::current() const {
    SweepResult result;
    result.processes_scanned = last_full_.processes_scanned;
    result.processes_denied = last_full_.processes_denied;
    result.processes_vanished = last_full_.processes_vanished;
    result.processes_unreadable = last_full_.processes_unreadable;
    result.denied_pids = last_full_.denied_pids;
    result.unreadable_pids = last_full_.unreadable_pids;
    result.error = last_full_.error;
    for (const auto& [pid, holder] : holders_) result.holders.push_back(holder);
    return result;
}

void HolderTracker::rescan(const std::set<pid_t>& dirty) {
    if (dirty.empty()) return;
    SweepResult rescanned =
        sweep_device_holders_of(roots_, std::vector<pid_t>(dirty.begin(), dirty.end()));
    processes_rescanned_ += dirty.size();
    for (pid_t pid : dirty) holders_.erase(pid);
    for (DeviceHolder& holder : rescanned.holders) {
        const pid_t pid = holder.pid;
        holders_.insert_or_assign(pid, std::move(holder));
    }
}

SweepResult HolderTracker::refresh() {
    std::set<pid_t> dirty;
    details_changed_.clear();
    overflowed_ = false;
    // Every process whose fork this frame's events could report was created after the
    // previous frame read its mark: what a repair rescans if they are lost.
    const std::optional<pid_t> mark = last_pid_allocated();
    watch_new_nodes();
    drain_fanotify(dirty);
    drain_connector(dirty);
    if (overflowed_) ++overflows_;
    const bool safety_sweep_due =
        ++frames_since_sweep_ >= full_sweep_every_ &&
        std::chrono::steady_clock::now() - last_full_sweep_at_ >= min_sweep_gap_;
    if (events_lost_ || safety_sweep_due) {
        // Events of this frame are applied before the check, so the check compares
        // like with like (and a frame that lost events sweeps without a check).
        const bool complete = !events_lost_ && !process_events_lost_;
        if (complete) rescan(dirty);
        const bool matched_before = last_check_matched_;
        full_sweep();
        if (!complete) last_check_matched_ = matched_before;
        swept_in_full_ = true;
        frame_mark_ = mark;
        return current();
    }
    if (process_events_lost_) {
        repair(std::move(dirty));
    } else {
        rescan(dirty);
        swept_in_full_ = false;
    }
    frame_mark_ = mark;
    return current();
}

}  // namespace gpukill

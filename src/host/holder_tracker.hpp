// Device holders kept current from kernel events instead of a /proc sweep every frame:
// what `list --watch` and guard run pay forever. fanotify reports each open and close
// of a GPU device node (with the opener's PID); the process connector (netlink,
// CN_IDX_PROC) reports forks, execs and exits. A frame rescans only the processes an
// event named (a new opener, a holder's new child that inherited its fds, a holder that
// exec'd or exited), with sweep_device_holders_of. Every `full_sweep_every` frames (but
// not sooner than sweep_no_more_often_than allows), and after lost events, a full sweep
// replaces the tracked set: the safety net for what no event reports (a descriptor
// passed over a unix socket), and the check that the tracked set was right
// (`last_check_matched`). A busy node starts hundreds of processes
// a second: the connector's socket gets a large receive buffer and an in-kernel filter
// that drops what cannot matter (threads' forks and exits, other event kinds), and when
// the kernel still drops events (ENOBUFS) the frame repairs instead of sweeping: the
// tracked holders and every process created since the previous frame began are rescanned
// (the kernel hands out PIDs in cyclic order and says which it handed out last,
// /proc/sys/kernel/ns_last_pid: a process whose fork was lost was allocated after the
// previous frame's mark). Lost opens (fanotify's queue overflowing) cost a full sweep. inotify on
// the node directories reports nodes created later (a hotplugged GPU): each is marked, and that
// frame sweeps in full, since whoever opened it before the mark was not reported. Only names that
// are GPU nodes (or their directories) count: /dev's other churn (ttys, loop devices, shm under a
// devfs root) costs a read of the queue, not a sweep.
//
// Both sources need privilege (CAP_SYS_ADMIN for fanotify, CAP_NET_ADMIN for the
// connector): without it start() says why and callers sweep every frame as before.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "host/fd_sweep.hpp"
#include "model/host_roots.hpp"
#include "sys/fd_io.hpp"

namespace gpukill {

class HolderTracker {
  public:
    // Room for a few seconds of a busy node's process events in the connector's socket.
    static constexpr int kDefaultReceiveBuffer = 8 << 20;

    // The event sources, marked on the GPU device nodes under roots.devfs, then a full
    // sweep. Null, with `why_not` set, when a source cannot be had. The connector's
    // receive buffer is asked for `receive_buffer_bytes` (the kernel may grant less).
    static std::unique_ptr<HolderTracker> start(const HostRoots& roots,
                                                std::size_t full_sweep_every, std::string& why_not,
                                                int receive_buffer_bytes = kDefaultReceiveBuffer);

    // What start() would have, without its sweep of every process: whether the event
    // sources can be had here (else null, with `why_not`), the connector's buffer as the
    // kernel grants it and whether the in-kernel filter attaches. For `gpukill doctor`,
    // which asks only that.
    struct Sources {
        std::size_t receive_buffer_bytes = 0;
        bool events_filtered = false;
    };
    static std::optional<Sources> probe(const HostRoots& roots, std::string& why_not);

    // The holders now, as a full sweep would find them; visibility counts are the last
    // full sweep's.
    SweepResult refresh();

    // The periodic safety sweep waits at least `gap` after the last full sweep, however
    // many frames were asked for: frames asked for on demand (the agent answering local
    // lists, several a second) must not turn every 30th into a sweep of every process.
    // Lost events still sweep at once. Default: no gap.
    void sweep_no_more_often_than(std::chrono::steady_clock::duration gap) { min_sweep_gap_ = gap; }

    // Whether the last full sweep found exactly the set the events had kept (true before
    // the first check).
    bool last_check_matched() const { return last_check_matched_; }
    std::size_t full_sweeps() const { return full_sweeps_; }
    // Whether the last refresh swept /proc in full (a safety-net frame, or one after lost
    // events): the frames on which what no event reports is read again.
    bool swept_in_full() const { return swept_in_full_; }
    // The processes that exec'd or changed their uid during the last refresh's events,
    // any process: the details a cache must read again (process_info_cache.hpp).
    const std::set<pid_t>& details_changed() const { return details_changed_; }
    std::size_t processes_rescanned() const { return processes_rescanned_; }
    // Times the kernel dropped process events (the connector's ENOBUFS) or fanotify's
    // queue overflowed, since start; frames repaired by a targeted rescan instead of a
    // full sweep; and the connector's receive buffer as the kernel granted it.
    std::size_t overflows() const { return overflows_; }
    std::size_t repairs() const { return repairs_; }
    std::size_t receive_buffer_bytes() const { return receive_buffer_bytes_; }
    // Whether the in-kernel event filter is attached (else every event is read here).
    bool events_filtered() const { return events_filtered_; }
    // Entries made or removed in the node directories that were not GPU nodes.
    std::size_t unrelated_node_events() const { return unrelated_node_events_; }

  private:
    // The event sources opened and marked, the frame mark read; no sweep yet.
    static std::unique_ptr<HolderTracker> open_sources(const HostRoots& roots,
                                                       std::size_t full_sweep_every,
                                                       std::string& why_not,
                                                       int receive_buffer_bytes);
    HolderTracker(const HostRoots& roots, std::size_t full_sweep_every, UniqueFd fanotify,
                  UniqueFd connector, UniqueFd inotify, std::string canonical_devfs,
                  std::map<int, std::string> directories);
    static bool mark_node(int fanotify, const std::string& node);
    // New GPU device nodes marked (and a full sweep called for) since the last frame.
    void watch_new_nodes();
    void drain_fanotify(std::set<pid_t>& dirty);
    void drain_connector(std::set<pid_t>& dirty);
    // The named processes read again: each is a holder now or is dropped.
    void rescan(const std::set<pid_t>& dirty);
    void full_sweep();
    // After lost process events: the tracked holders, `dirty` and every process created
    // since the previous frame's mark, read again (a full sweep when that cannot be told).
    void repair(std::set<pid_t> dirty);
    // The last PID the kernel handed out (roots.procfs/sys/kernel/ns_last_pid).
    std::optional<pid_t> last_pid_allocated() const;
    SweepResult current() const;

    HostRoots roots_;
    std::size_t full_sweep_every_;
    std::chrono::steady_clock::duration min_sweep_gap_{};
    std::chrono::steady_clock::time_point last_full_sweep_at_{};
    UniqueFd fanotify_;
    UniqueFd connector_;
    UniqueFd inotify_;  // the node directories: nodes created or removed
    std::string canonical_devfs_;
    std::map<int, std::string> watched_directories_;  // by watch descriptor
    std::map<pid_t, DeviceHolder> holders_;
    SweepResult last_full_;  // its counts; its holders moved into holders_
    std::size_t frames_since_sweep_ = 0;
    bool events_lost_ = false;          // opens or node events lost: only a full sweep knows
    bool process_events_lost_ = false;  // forks, execs or exits lost: a repair knows
    std::optional<pid_t> frame_mark_;   // the last PID allocated when the last frame began
    bool overflowed_ = false;           // this frame lost events
    bool last_check_matched_ = true;
    bool swept_in_full_ = true;  // start() sweeps in full
    std::set<pid_t> details_changed_;
    std::size_t full_sweeps_ = 0;
    std::size_t processes_rescanned_ = 0;
    std::size_t unrelated_node_events_ = 0;
    std::size_t overflows_ = 0;
    std::size_t repairs_ = 0;
    std::size_t receive_buffer_bytes_ = 0;
    bool events_filtered_ = false;
};

}  // namespace gpukill

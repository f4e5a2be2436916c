// Reads what the signals judge about each GPU holder: its TCP sockets (from its own
// network namespace's /proc/PID/net/tcp and tcp6, so a container's connections are
// its own), its samples in the usage history, whether its session leader still runs,
// and (content_reader.hpp, bounded) its executable's bytes and the configuration files
// its arguments name. Effects only; the judging is in assessment.hpp.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "detect/assessment.hpp"
#include "detect/proc_net_tcp.hpp"
#include "history/usage_store.hpp"
#include "model/host_roots.hpp"
#include "model/result.hpp"
#include "model/snapshot.hpp"

namespace gpukill::detect {

struct FactsContext {
    HostRoots roots;
    history::UsageStore* history = nullptr;  // null: no history (history_note says why)
    std::string history_note;
    std::int64_t since_unix_ms = 0;  // the history window
    std::int64_t now_unix_ms = 0;
    // What to look for in executables and configuration files, and how much to read;
    // null reads neither.
    const RogueConfig* config = nullptr;
};

// One ProcessFacts per snapshot process, in the snapshot's order.
std::vector<ProcessFacts> read_facts(const Snapshot& snapshot, const FactsContext& context);

// The inodes of PROCFS/PID/fd/* links reading "socket:[N]". Descriptors closed while
// being read are skipped; an unreadable fd directory (another user's process without
// privilege) is an error.
Result<std::set<std::uint64_t>> read_socket_inodes(const std::string& procfs, pid_t pid);

// PROCFS/PID/net/tcp and tcp6 parsed. A missing tcp6 (IPv6 disabled) is no sockets.
Result<std::vector<TcpSocket>> read_tcp_tables(const std::string& procfs, pid_t pid);

// Whether the leader of the process's session still runs: true for a session leader;
// false when no process has the session id's PID or the one that has it leads
// another session; empty when unknown (session 0, or unreadable).
std::optional<bool> session_leader_alive(const HostRoots& roots, const ProcessInfo& info);

}  // namespace gpukill::detect

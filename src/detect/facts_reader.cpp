#include "detect/facts_reader.hpp"

#include <dirent.h>
#include <fcntl.h>

#include <fmt/format.h>

#include <cerrno>
#include <map>

#include "detect/content_reader.hpp"
#include "host/proc_reader.hpp"
#include "model/start_time.hpp"
#include "sys/fd_io.hpp"

namespace gpukill::detect {
namespace {

// Processes in one network namespace share its tables: read them once per namespace.
class TcpTableCache {
  public:
    explicit TcpTableCache(std::string procfs) : procfs_(std::move(procfs)) {}

    Result<std::vector<TcpSocket>> tables_of(pid_t pid) {
        const std::string ns_link = fmt::format("{}/{}/ns/net", procfs_, pid);
        auto ns = read_link_at(AT_FDCWD, ns_link.c_str());
        if (ns) {
            if (auto cached = by_namespace_.find(*ns); cached != by_namespace_.end()) {
                return cached->second;
            }
        }
        auto tables = read_tcp_tables(procfs_, pid);
        if (tables && ns) by_namespace_.emplace(*ns, *tables);
        return tables;
    }

  private:
    std::string procfs_;
    std::map<std::string, std::vector<TcpSocket>> by_namespace_;
};

void read_network(const ProcessInfo& info, const HostRoots& roots, TcpTableCache& cache,
                  ProcessFacts& facts) {
    auto inodes = read_socket_inodes(roots.procfs, info.pid);
    if (!inodes) {
        facts.network_note = inodes.error().what;
        return;
    }
    NetworkFacts network;
    if (!inodes->empty()) {
        auto table = cache.tables_of(info.pid);
        if (!table) {
            facts.network_note = table.error().what;
            return;
        }
        network.listening_ports = listening_ports(*table);
        for (const TcpSocket& socket : *table) {
            if (inodes->contains(socket.inode)) network.sockets.push_back(socket);
        }
    }
    // The PID may have been reused while its descriptors were read.
    auto start = read_start_time(roots, info.pid);
    if (!start || *start != info.start_time_ticks) {
        facts.network_note = "the process exited while its sockets were read";
        return;
    }
    facts.network = std::move(network);
}

void read_history(const ProcessInfo& info, const FactsContext& context, ProcessFacts& facts) {
    if (context.history == nullptr) {
        facts.history_note = context.history_note;
        return;
    }
    history::SampleQuery query;
    query.since_unix_ms = context.since_unix_ms;
    query.until_unix_ms = context.now_unix_ms + 1;
    query.pid = info.pid;
    query.start_time_ticks = info.start_time_ticks;
    auto samples = context.history->process_samples(query);
    if (!samples) {
        facts.history_note = "usage history unreadable: " + samples.error().what;
        return;
    }
    facts.history = std::move(*samples);
}

void read_content(const ProcessInfo& info, const FactsContext& context,
                  ExecutableReader* executables, ProcessFacts& facts) {
    if (info.kernel_thread || context.config == nullptr) return;
    if (executables != nullptr && executables->enabled()) {
        if (auto read = executables->read(info.pid)) {
            facts.executable_file = read->file;
            facts.executable_scan = std::move(read->scan);
            if (!facts.executable_scan) {
                facts.executable_note = "it runs gpukill itself, whose rule lists carry them all";
            }
        } else {
            facts.executable_note = read.error().what;
        }
    }
    for (const std::string& path : config_file_arguments(info.cmdline)) {
        auto file = read_argument_file(context.roots.procfs, info.pid, info.uid, path,
                                       context.config->config_file_max_bytes);
        if (!file) {
            facts.config_file_notes.push_back("configuration file not judged: " +
                                              file.error().what);
        } else if (*file) {
            facts.config_files.push_back(std::move(**file));
        }
    }
    // The PID may have been reused while the files were read: what was read is another's.
    auto start = read_start_time(context.roots, info.pid);
    if (!start || *start != info.start_time_ticks) {
        facts.executable_file.reset();
        facts.executable_scan.reset();
        facts.executable_note = "the process exited while its executable was read";
        facts.config_files.clear();
    }
}

SessionFacts read_session(const SnapshotProcess& holder, const Snapshot& snapshot,
                          const FactsContext& context) {
    SessionFacts session;
    session.orphaned = holder.orphaned;
    session.session_leader_alive = session_leader_alive(context.roots, holder.info);
    if (snapshot.boot_time_unix_s) {
        const std::int64_t started =
            start_time_unix_ms(holder.info.start_time_ticks, *snapshot.boot_time_unix_s,
                               snapshot.clock_ticks_per_second);
        if (context.now_unix_ms >= started) {
            session.age_seconds = static_cast<double>(context.now_unix_ms - started) / 1000.0;
        }
    }
    return session;
}

}  // namespace

Result<std::set<std::uint64_t>> read_socket_inodes(const std::string& procfs, pid_t pid) {
    const std::string path = fmt::format("{}/{}/fd", procfs, pid);
    auto dir_fd = open_dir_at(AT_FDCWD, path.c_str());
    if (!dir_fd) return std::unexpected(dir_fd.error());
    DIR* dir = ::fdopendir(dir_fd->get());
    if (dir == nullptr) return std::unexpected(os_error("cannot list " + path, errno));
    dir_fd->release();  // closedir closes it now
    std::set<std::uint64_t> inodes;
    while (const dirent* entry = ::readdir(dir)) {
        if (entry->d_name[0] == '.') continue;
        auto link = read_link_at(::dirfd(dir), entry->d_name);
        if (!link) continue;  // closed since the listing
        if (auto inode = socket_inode(*link)) inodes.insert(*inode);
    }
    ::closedir(dir);
    return inodes;
}

Result<std::vector<TcpSocket>> read_tcp_tables(const std::string& procfs, pid_t pid) {
    std::vector<TcpSocket> sockets;
    for (const bool ipv6 : {false, true}) {
        const std::string path = fmt::format("{}/{}/net/tcp{}", procfs, pid, ipv6 ? "6" : "");
        auto text = read_file_at(AT_FDCWD, path.c_str());
        if (!text) {
            if (ipv6 && text.error().errno_value == ENOENT) continue;
            return std::unexpected(text.error());
        }
        auto parsed = parse_proc_net_tcp(*text, ipv6);
        if (!parsed) return fail(path + ": " + parsed.error().what);
        sockets.insert(sockets.end(), parsed->begin(), parsed->end());
    }
    return sockets;
}

std::optional<bool> session_leader_alive(const HostRoots& roots, const ProcessInfo& info) {
    if (info.sid <= 0) return std::nullopt;
    if (info.sid == info.pid) return true;
    auto leader = read_process(roots, info.sid);
    if (!leader) {
        const int err = leader.error().errno_value;
        if (err == ENOENT || err == ESRCH) return false;
        return std::nullopt;
    }
    return leader->sid == info.sid;
}

std::vector<ProcessFacts> read_facts(const Snapshot& snapshot, const FactsContext& context) {
    TcpTableCache cache(context.roots.procfs);
    std::optional<ExecutableReader> executables;
    if (context.config != nullptr) executables.emplace(context.roots.procfs, *context.config);
    std::vector<ProcessFacts> all;
    all.reserve(snapshot.processes.size());
    for (const SnapshotProcess& holder : snapshot.processes) {
        ProcessFacts facts;
        facts.holder = holder;
        read_network(holder.info, context.roots, cache, facts);
        read_history(holder.info, context, facts);
        read_content(holder.info, context, executables ? &*executables : nullptr, facts);
        facts.session = read_session(holder, snapshot, context);
        all.push_back(std::move(facts));
    }
    return all;
}

}  // namespace gpukill::detect

// Reading the facts: socket inodes from fd links, the process's own namespace's TCP
// tables (a fake procfs tree in the kernel's formats), the usage history through the
// history::UsageStore interface (an in-memory fake), and session leaders.
#include "detect/facts_reader.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "../host/host_test_support.hpp"
#include "host/proc_reader.hpp"

namespace gpukill::detect {
namespace {

using host_test::TempDir;
using host_test::write_file;

// The history::UsageStore interface over a vector, answering queries as the contract says:
// [since, until), exact pid and start time.
class FakeUsageStore : public history::UsageStore {
  public:
    std::vector<history::ProcessSample> samples;
    std::vector<history::SampleQuery> queries;

    Result<void> record(const Snapshot&) override { return fail("read-only fake"); }
    Result<std::vector<history::GpuSample>> gpu_samples(const history::SampleQuery&) override {
        return std::vector<history::GpuSample>{};
    }
    Result<std::vector<history::ProcessSample>> process_samples(
        const history::SampleQuery& query) override {
        queries.push_back(query);
        std::vector<history::ProcessSample> out;
        for (const history::ProcessSample& sample : samples) {
            if (sample.time_unix_ms < query.since_unix_ms ||
                sample.time_unix_ms >= query.until_unix_ms) {
                continue;
            }
            if (query.pid && sample.pid != *query.pid) continue;
            if (query.start_time_ticks && sample.start_time_ticks != *query.start_time_ticks) {
                continue;
            }
            out.push_back(sample);
        }
        return out;
    }
    Result<void> enforce_retention(std::int64_t) override { return {}; }
    const std::string& path() const override { return path_; }

  private:
    std::string path_ = "memory";
};

const char* kTcp =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout "
    "inode\n"
    "   0: 0100007F:C350 0100007F:0D05 01 00000000:00000000 00:00000000 00000000     0        0 "
    "5001 1 0000000000000000 20 4 30 10 -1\n"
    "   1: 0100007F:C351 0100007F:0D05 01 00000000:00000000 00:00000000 00000000     0        0 "
    "5002 1 0000000000000000 20 4 30 10 -1\n"
    "   2: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 "
    "5003 1 0000000000000000 20 4 30 10 -1\n";

// PROCFS/PID with a stat line, fd links and its namespace's net/tcp.
void fake_process(const TempDir& procfs, pid_t pid, std::uint64_t start_ticks,
                  const std::vector<std::string>& fd_links) {
    const std::string dir = procfs / std::to_string(pid);
    write_file(dir + "/stat", std::to_string(pid) +
                                  " (w) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 " +
                                  std::to_string(start_ticks) + " 0 0\n");
    std::filesystem::create_directories(dir + "/fd");
    for (std::size_t i = 0; i < fd_links.size(); ++i) {
        std::filesystem::create_symlink(fd_links[i], dir + "/fd/" + std::to_string(i));
    }
    write_file(dir + "/net/tcp", kTcp);
    std::filesystem::create_directories(dir + "/ns");
    std::filesystem::create_symlink("net:[4026531992]", dir + "/ns/net");
}

TEST(RogueFactsReader, SocketInodesFromFdLinks) {
    TempDir procfs;
    fake_process(procfs, 42, 100, {"/dev/nvidia0", "socket:[5001]", "pipe:[9]", "socket:[77]"});
    auto inodes = read_socket_inodes(procfs.path(), 42);
    ASSERT_TRUE(inodes) << inodes.error().what;
    EXPECT_EQ(*inodes, (std::set<std::uint64_t>{77, 5001}));
    EXPECT_FALSE(read_socket_inodes(procfs.path(), 43));
}

TEST(RogueFactsReader, TablesOfTheProcessesOwnNamespaceWithoutTcp6) {
    TempDir procfs;
    fake_process(procfs, 42, 100, {});
    auto sockets = read_tcp_tables(procfs.path(), 42);
    ASSERT_TRUE(sockets) << sockets.error().what;
    EXPECT_EQ(sockets->size(), 3u);
    write_file(procfs / "42/net/tcp6", "garbage line\n");
    auto broken = read_tcp_tables(procfs.path(), 42);
    ASSERT_FALSE(broken);
    EXPECT_NE(broken.error().what.find("/42/net/tcp6: line 1"), std::string::npos)
        << broken.error().what;
}

TEST(RogueFactsReader, ReadsOnlyTheProcessesOwnSocketsAndItsHistory) {
    TempDir procfs;
    fake_process(procfs, 42, 100, {"socket:[5001]", "socket:[5003]"});
    Snapshot snapshot;
    SnapshotProcess holder;
    holder.info.pid = 42;
    holder.info.start_time_ticks = 100;
    holder.info.sid = 42;
    snapshot.processes.push_back(holder);

    FakeUsageStore store;
    store.samples = {{.time_unix_ms = 5000, .pid = 42, .start_time_ticks = 100},
                     {.time_unix_ms = 6000, .pid = 42, .start_time_ticks = 99},   // earlier owner
                     {.time_unix_ms = 100, .pid = 42, .start_time_ticks = 100}};  // before window
    FactsContext context;
    context.roots.procfs = procfs.path();
    context.history = &store;
    context.since_unix_ms = 1000;
    context.now_unix_ms = 10000;

    auto all = read_facts(snapshot, context);
    ASSERT_EQ(all.size(), 1u);
    const ProcessFacts& facts = all.front();
    ASSERT_TRUE(facts.network) << facts.network_note;
    ASSERT_EQ(facts.network->sockets.size(), 2u);
    EXPECT_EQ(facts.network->sockets[0].inode, 5001u);
    EXPECT_EQ(facts.network->sockets[0].remote_port, 3333);
    EXPECT_EQ(facts.network->listening_ports, (std::set<std::uint16_t>{8080}));
    ASSERT_TRUE(facts.history);
    ASSERT_EQ(facts.history->size(), 1u);
    EXPECT_EQ(facts.history->front().time_unix_ms, 5000);
    ASSERT_EQ(store.queries.size(), 1u);
    EXPECT_EQ(store.queries[0].pid, 42);
    EXPECT_EQ(store.queries[0].start_time_ticks, 100u);
    EXPECT_EQ(facts.session.session_leader_alive, true);
}

TEST(RogueFactsReader, AReusedPidOrNoHistoryIsSaidSo) {
    TempDir procfs;
    fake_process(procfs, 42, 555, {"socket:[5001]"});  // another process now has PID 42
    Snapshot snapshot;
    SnapshotProcess holder;
    holder.info.pid = 42;
    holder.info.start_time_ticks = 100;
    snapshot.processes.push_back(holder);
    FactsContext context;
    context.roots.procfs = procfs.path();
    context.history_note = "no usage history (missing): shape not judged";
    auto all = read_facts(snapshot, context);
    ASSERT_EQ(all.size(), 1u);
    EXPECT_FALSE(all[0].network);
    EXPECT_EQ(all[0].network_note, "the process exited while its sockets were read");
    EXPECT_FALSE(all[0].history);
    EXPECT_EQ(all[0].history_note, "no usage history (missing): shape not judged");
}

TEST(RogueFactsReader, SessionLeaders) {
    HostRoots roots;  // the real /proc
    auto self = read_process(roots, ::getpid());
    ASSERT_TRUE(self) << self.error().what;
    const auto alive = session_leader_alive(roots, *self);
    if (self->sid > 0) {
        EXPECT_TRUE(alive.has_value());
    }
    ProcessInfo leader = *self;
    leader.sid = leader.pid;
    EXPECT_EQ(session_leader_alive(roots, leader), true);
    ProcessInfo gone = *self;
    gone.sid = 4194304 + 1;  // above any PID: no such process
    EXPECT_EQ(session_leader_alive(roots, gone), false);
    ProcessInfo none = *self;
    none.sid = 0;
    EXPECT_EQ(session_leader_alive(roots, none), std::nullopt);
}

}  // namespace
}  // namespace gpukill::detect

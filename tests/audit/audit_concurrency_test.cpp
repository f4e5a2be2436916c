// The audit log under 8 concurrent writer processes has only whole lines, and a writer
// killed mid-stream costs at most its own last line. Every process here is a child this
// test forks; each is reaped before the test ends.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "../host/host_test_support.hpp"
#include "audit/audit_log.hpp"
#include "audit_test_support.hpp"

namespace gpukill::audit {
namespace {

using audit_test::lines_of;
using audit_test::read_all;
using host_test::TempDir;
using json = nlohmann::ordered_json;

constexpr int kWriters = 8;
constexpr int kRecordsPerWriter = 500;

// Sizes from a few bytes to 12 KiB, a quarter of them above a 4 KiB page, so that
// writes span pages and a non-atomic append would show up as interleaving.
std::size_t pad_size(int writer, int seq) {
    const int step = (seq * 7919 + writer * 104729) % 100;
    if (step < 25) return static_cast<std::size_t>(4097 + step * 320);
    return static_cast<std::size_t>(step * 37);
}

// Children are held at a gate (a pipe the parent closes) so they all start at once.
// Each opens its own AuditLog, as separate gpukill processes would.
[[noreturn]] void writer_main(const std::string& dir, int writer, int gate) {
    char byte;
    while (::read(gate, &byte, 1) > 0) {
    }
    auto log = AuditLog::open(dir, AuditLogOptions{.use_syslog = false});
    if (!log) ::_exit(2);
    for (int seq = 0; seq < kRecordsPerWriter; ++seq) {
        const std::size_t size = pad_size(writer, seq);
        const json record = {{"writer", writer},
                             {"seq", seq},
                             {"pad_bytes", size},
                             {"pad", std::string(size, static_cast<char>('a' + writer))}};
        if (!log->append(record)) ::_exit(3);
    }
    ::_exit(0);
}

int wait_for(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) throw std::runtime_error("waitpid failed");
    }
    return status;
}

TEST(AuditLogConcurrency, EightWriterProcessesLeaveOnlyWholeLines) {
    TempDir tmp;
    int gate[2];
    ASSERT_EQ(::pipe(gate), 0);
    std::vector<pid_t> children;
    for (int writer = 0; writer < kWriters; ++writer) {
        const pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            ::close(gate[1]);
            writer_main(tmp.path(), writer, gate[0]);
        }
        children.push_back(pid);
    }
    ::close(gate[0]);
    ::close(gate[1]);  // opens the gate
    for (pid_t pid : children) {
        const int status = wait_for(pid);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer status " << status;
    }

    const std::string text = read_all(tmp / "audit.jsonl");
    ASSERT_FALSE(text.empty());
    EXPECT_EQ(text.back(), '\n');
    const auto lines = lines_of(text);
    ASSERT_EQ(lines.size(), static_cast<std::size_t>(kWriters * kRecordsPerWriter));

    std::map<int, int> next_seq;  // each writer's records appear whole and in its order
    for (const std::string& line : lines) {
        ASSERT_TRUE(json::accept(line)) << "torn line: " << line.substr(0, 120);
        const json record = json::parse(line);
        const int writer = record["writer"].get<int>();
        const std::string& pad = record["pad"].get_ref<const std::string&>();
        ASSERT_EQ(pad.size(), record["pad_bytes"].get<std::size_t>());
        ASSERT_EQ(pad.find_first_not_of(static_cast<char>('a' + writer)), std::string::npos);
        ASSERT_EQ(record["seq"].get<int>(), next_seq[writer]++);
    }
    for (int writer = 0; writer < kWriters; ++writer)
        EXPECT_EQ(next_seq[writer], kRecordsPerWriter);
}

TEST(AuditLogConcurrency, AWriterKilledMidStreamCostsAtMostItsLastLine) {
    TempDir tmp;
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        ::close(ready[0]);
        auto log = AuditLog::open(tmp.path(), AuditLogOptions{.use_syslog = false});
        if (!log) ::_exit(2);
        const std::string pad(256 * 1024, 'k');  // large writes: a kill may land inside one
        for (int seq = 0;; ++seq) {
            if (!log->append({{"seq", seq}, {"pad", pad}})) ::_exit(3);
            if (seq == 20 && ::write(ready[1], "r", 1) != 1) ::_exit(4);
        }
    }
    ::close(ready[1]);
    char byte = 0;
    ASSERT_EQ(::read(ready[0], &byte, 1), 1);
    ::close(ready[0]);
    ::kill(pid, SIGKILL);  // our own child, forked above
    const int status = wait_for(pid);
    ASSERT_TRUE(WIFSIGNALED(status));

    auto log = AuditLog::open(tmp.path(), AuditLogOptions{.use_syslog = false});
    ASSERT_TRUE(log);
    ASSERT_TRUE(log->append({{"event", "after"}}));
    const auto lines = lines_of(read_all(log->path()));
    ASSERT_GE(lines.size(), 22U);
    int torn = 0;
    for (std::size_t i = 0; i + 1 < lines.size(); ++i) torn += json::accept(lines[i]) ? 0 : 1;
    EXPECT_LE(torn, 1);
    EXPECT_EQ(json::parse(lines.back())["event"], "after");
}

}  // namespace
}  // namespace gpukill::audit

// AuditLog on real files in a temporary state directory: creation, whole lines,
// repair of a cut line, rotation, and errors as values with the path in them.
#include "audit/audit_log.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../host/host_test_support.hpp"
#include "audit_test_support.hpp"

namespace gpukill::audit {
namespace {

using audit_test::lines_of;
using audit_test::read_all;
using host_test::TempDir;
using host_test::write_file;
using json = nlohmann::ordered_json;

AuditLogOptions quiet() {
    return AuditLogOptions{.use_syslog = false};
}

mode_t mode_of(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw std::runtime_error("cannot stat " + path);
    return st.st_mode & 07777;
}

// Runs `body` in a forked child (so it may change its uid or limits) and returns what
// it returned. The child only runs the body and _exits.
std::string in_child(const std::function<std::string()>& body) {
    int pipe_fds[2];
    if (::pipe(pipe_fds) != 0) throw std::runtime_error("pipe failed");
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        ::close(pipe_fds[0]);
        const std::string out = body();
        const bool sent =
            ::write(pipe_fds[1], out.data(), out.size()) == static_cast<ssize_t>(out.size());
        ::_exit(sent ? 0 : 1);
    }
    ::close(pipe_fds[1]);
    std::string out;
    char buffer[4096];
    ssize_t n = 0;
    while ((n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0) {
        out.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(pipe_fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("child failed");
    return out;
}

TEST(AuditLog, CreatesTheStateDirectoryWithParentsAndPrivateModes) {
    TempDir tmp;
    const mode_t old_umask = ::umask(022);
    auto log = AuditLog::open(tmp / "a/b/state/", quiet());
    ::umask(old_umask);
    ASSERT_TRUE(log) << log.error().what;
    EXPECT_EQ(log->path(), tmp / "a/b/state/audit.jsonl");
    EXPECT_EQ(mode_of(tmp / "a"), 0750U);
    EXPECT_EQ(mode_of(tmp / "a/b/state"), 0750U);
    EXPECT_EQ(mode_of(log->path()), 0640U);
}

TEST(AuditLog, LeavesAnExistingDirectoryAsItIs) {
    TempDir tmp;
    std::filesystem::create_directory(tmp / "state");
    ::chmod((tmp / "state").c_str(), 0711);
    ASSERT_TRUE(AuditLog::open(tmp / "state", quiet()));
    EXPECT_EQ(mode_of(tmp / "state"), 0711U);
}

TEST(AuditLog, EachRecordIsOneLineThatParsesBackToIt) {
    TempDir tmp;
    auto log = AuditLog::open(tmp.path(), quiet());
    ASSERT_TRUE(log) << log.error().what;
    const std::vector<json> records = {
        {{"event", "result"}, {"pid", 4242}, {"note", "line one\nline two\r\t\x01"}},
        {{"event", "planned"},
         {"targets", json::array({1, 2, 3})},
         {"pad", std::string(9000, 'x')}},
        {{"event", "refused"}, {"name", "\xce\xbb-worker"}},
    };
    for (const json& record : records) ASSERT_TRUE(log->append(record));

    const auto lines = lines_of(read_all(log->path()));
    ASSERT_EQ(lines.size(), records.size());
    for (std::size_t i = 0; i < records.size(); ++i) EXPECT_EQ(json::parse(lines[i]), records[i]);
    EXPECT_EQ(read_all(log->path()).back(), '\n');
}

TEST(AuditLog, AStepsRecordsAreAppendedTogetherAsWholeLinesInOrder) {
    TempDir tmp;
    auto log = AuditLog::open(tmp.path(), quiet());
    ASSERT_TRUE(log) << log.error().what;
    ASSERT_TRUE(log->append({{"event", "planned"}}));
    std::vector<json> results;
    for (int pid = 100; pid < 300; ++pid) results.push_back({{"event", "result"}, {"pid", pid}});
    ASSERT_TRUE(log->append_all(results));
    ASSERT_TRUE(log->append_all({}));
    const auto lines = lines_of(read_all(log->path()));
    ASSERT_EQ(lines.size(), 201u);
    EXPECT_EQ(json::parse(lines[0])["event"], "planned");
    for (std::size_t i = 0; i < results.size(); ++i) {
        EXPECT_EQ(json::parse(lines[i + 1]), results[i]);
    }
}

TEST(AuditLog, BytesThatAreNotUtf8BecomeReplacementCharacters) {
    TempDir tmp;
    auto log = AuditLog::open(tmp.path(), quiet());
    ASSERT_TRUE(log);
    // A process may name itself with any bytes (prctl PR_SET_NAME).
    ASSERT_TRUE(log->append({{"name", std::string("bad\xff\xfe")}}));
    const json back = json::parse(lines_of(read_all(log->path())).at(0));
    EXPECT_EQ(back["name"], "bad\xef\xbf\xbd\xef\xbf\xbd");
}

TEST(AuditLog, ALineCutShortByADeadWriterIsEndedBeforeTheNextRecord) {
    TempDir tmp;
    const std::string path = tmp / "audit.jsonl";
    write_file(path, "{\"event\":\"planned\"}\n{\"event\":\"sign");
    auto log = AuditLog::open(tmp.path(), quiet());
    ASSERT_TRUE(log);
    ASSERT_TRUE(log->append({{"event", "result"}}));
    ASSERT_TRUE(log->append({{"event", "verified"}}));

    const auto lines = lines_of(read_all(path));
    ASSERT_EQ(lines.size(), 4U);
    EXPECT_EQ(lines[1], "{\"event\":\"sign");  // the fragment stays, on its own line
    EXPECT_EQ(json::parse(lines[2])["event"], "result");
    EXPECT_EQ(json::parse(lines[3])["event"], "verified");
}

TEST(AuditLog, AFailedWriteLeavesNoFragment) {
    TempDir tmp;
    auto log = AuditLog::open(tmp.path(), quiet());
    ASSERT_TRUE(log);
    ASSERT_TRUE(log->append({{"event", "planned"}}));
    const std::string before = read_all(log->path());

    // A file-size limit just past the current end makes the write stop part-way, as a
    // full disk would; the child ignores SIGXFSZ so it sees EFBIG instead of dying.
    const std::string error = in_child([&] {
        std::signal(SIGXFSZ, SIG_IGN);
        const rlimit limit{before.size() + 100, before.size() + 100};
        if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) return std::string("setrlimit failed");
        auto child_log = AuditLog::open(tmp.path(), quiet());
        if (!child_log) return child_log.error().what;
        auto appended = child_log->append({{"event", "result"}, {"pad", std::string(5000, 'p')}});
        return appended ? std::string("appended") : appended.error().what;
    });
    EXPECT_EQ(error, "cannot write audit log " + log->path() + ": File too large");
    EXPECT_EQ(read_all(log->path()), before);

    ASSERT_TRUE(log->append({{"event", "verified"}}));
    EXPECT_EQ(lines_of(read_all(log->path())).size(), 2U);
}

TEST(AuditLog, ARotatedFileIsFollowedToTheNewPath) {
    TempDir tmp;
    auto log = AuditLog::open(tmp.path(), quiet());
    ASSERT_TRUE(log);
    ASSERT_TRUE(log->append({{"n", 1}}));
    std::filesystem::rename(log->path(), tmp / "audit.jsonl.1");
    ASSERT_TRUE(log->append({{"n", 2}}));

    EXPECT_EQ(read_all(tmp / "audit.jsonl.1"), "{\"n\":1}\n");
    EXPECT_EQ(read_all(log->path()), "{\"n\":2}\n");
}

TEST(AuditLog, ADeletedFileIsCreatedAgain) {
    TempDir tmp;
    auto log = AuditLog::open(tmp / "state", quiet());
    ASSERT_TRUE(log);
    ASSERT_TRUE(log->append({{"n", 1}}));
    std::filesystem::remove_all(tmp / "state");
    ASSERT_TRUE(log->append({{"n", 2}}));
    EXPECT_EQ(read_all(log->path()), "{\"n\":2}\n");
}

TEST(AuditLog, AnUnwritableStateDirectoryIsAnErrorNamingThePath) {
    TempDir tmp;
    ::chmod(tmp.path().c_str(), 0755);  // traversable for the unprivileged child
    std::filesystem::create_directory(tmp / "ro");
    ::chmod((tmp / "ro").c_str(), 0555);
    const std::string error = in_child([&] {
        // Root writes anywhere: drop to nobody to meet the permission check.
        if (::geteuid() == 0 &&
            (::setresgid(65534, 65534, 65534) != 0 || ::setresuid(65534, 65534, 65534) != 0)) {
            return std::string("cannot drop privileges");
        }
        auto log = AuditLog::open(tmp / "ro/state", quiet());
        return log ? std::string("opened") : log.error().what;
    });
    EXPECT_EQ(error, "cannot create state directory " + (tmp / "ro/state") + ": Permission denied");
}

TEST(AuditLog, AStateDirectoryPathThroughAFileIsAnError) {
    TempDir tmp;
    write_file(tmp / "file", "");
    auto log = AuditLog::open(tmp / "file/state", quiet());
    ASSERT_FALSE(log);
    EXPECT_EQ(log.error().what,
              "cannot create state directory " + (tmp / "file/state") + ": Not a directory");
    EXPECT_EQ(log.error().errno_value, ENOTDIR);

    auto not_dir = AuditLog::open(tmp / "file", quiet());
    ASSERT_FALSE(not_dir);
    EXPECT_EQ(not_dir.error().what,
              "cannot use state directory " + (tmp / "file") + ": Not a directory");
}

TEST(AuditLog, SomethingOtherThanAFileAtTheLogPathIsRefused) {
    TempDir tmp;
    ASSERT_EQ(::mkfifo((tmp / "audit.jsonl").c_str(), 0600), 0);
    auto log = AuditLog::open(tmp.path(), quiet());
    ASSERT_FALSE(log);
    EXPECT_NE(log.error().what.find(tmp / "audit.jsonl"), std::string::npos) << log.error().what;
}

TEST(AuditLog, SendsASummaryToSyslogEvenWhenOnlySyslogIsLeft) {
    TempDir tmp;
    std::vector<std::pair<int, std::string>> sent;
    AuditLogOptions options{.use_syslog = true, .syslog = [&](int priority, std::string_view line) {
                                sent.emplace_back(priority, std::string(line));
                            }};
    auto log = AuditLog::open(tmp.path(), options);
    ASSERT_TRUE(log);
    ASSERT_TRUE(log->append({{"event", "refused"}, {"pid", 1}, {"kind", "init"}}));
    ASSERT_EQ(sent.size(), 1U);
    EXPECT_EQ(sent[0].first, LOG_WARNING);
    EXPECT_EQ(sent[0].second, "refused pid=1 kind=init");

    // The file is gone and cannot come back (its directory is a file now): the append
    // fails, and syslog still gets the record.
    std::filesystem::remove_all(tmp / "audit.jsonl");
    std::filesystem::rename(tmp.path(), tmp.path() + ".moved");
    write_file(tmp.path(), "");
    EXPECT_FALSE(log->append({{"event", "signalled"}}));
    EXPECT_EQ(sent.size(), 2U);
    std::filesystem::remove(tmp.path());
    std::filesystem::rename(tmp.path() + ".moved", tmp.path());
}

TEST(AuditLog, ThreadsSharingOneLogWriteWholeLines) {
    TempDir tmp;
    auto log = AuditLog::open(tmp.path(), quiet());
    ASSERT_TRUE(log);
    constexpr int kThreads = 4;
    constexpr int kRecords = 100;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < kRecords; ++i) {
                const std::size_t size = static_cast<std::size_t>((i * 977) % 6000);
                ASSERT_TRUE(log->append({{"thread", t}, {"pad", std::string(size, 'z')}}));
            }
        });
    }
    for (auto& thread : threads) thread.join();
    const auto lines = lines_of(read_all(log->path()));
    ASSERT_EQ(lines.size(), static_cast<std::size_t>(kThreads * kRecords));
    for (const auto& line : lines) EXPECT_TRUE(json::accept(line)) << line.substr(0, 80);
}

}  // namespace
}  // namespace gpukill::audit

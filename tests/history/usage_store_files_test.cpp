// The usage history facing the file system: a foreign, newer or damaged file is refused
// with a line naming it and is never overwritten; a read-only directory or file and a
// full disk are one-line errors; concurrent writers (processes) all get their samples
// in within the busy timeout, also when they create the file together.
#include <grp.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

#include "../audit/audit_test_support.hpp"
#include "../host/host_test_support.hpp"
#include "history/usage_store.hpp"
#include "usage_test_support.hpp"

namespace gpukill::history {
namespace {

using audit_test::read_all;
using host_test::TempDir;
using namespace usage_test;

constexpr uid_t kNobody = 65534;

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

int wait_exit_code(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Runs `body` in a forked child (as `uid` when given and running as root) and returns
// the error line it reports through a pipe, or "" when it succeeded. The exit code 77
// means the child could not set up what it needed (the caller skips).
struct ChildOutcome {
    int exit_code = -1;
    std::string message;
};

template <class Body>
ChildOutcome in_child(Body body) {
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(fds[0]);
        const std::string message = body();
        (void)!::write(fds[1], message.data(), message.size());
        ::_exit(message == "skip" ? 77 : 0);
    }
    ::close(fds[1]);
    std::string message;
    char buffer[512];
    ssize_t n = 0;
    while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0)
        message.append(buffer, static_cast<std::size_t>(n));
    ::close(fds[0]);
    return {wait_exit_code(pid), message};
}

bool drop_to_nobody() {
    if (::geteuid() != 0) return true;  // already unprivileged: permissions apply
    return ::setgroups(0, nullptr) == 0 && ::setgid(kNobody) == 0 && ::setuid(kNobody) == 0;
}

TEST(UsageStoreFiles, AForeignDatabaseIsRefusedAndLeftAlone) {
    TempDir dir;
    const std::string path = dir / "usage.sqlite3";
    {
        RawDb raw(path);
        raw.exec(
            "CREATE TABLE invoices(id INTEGER PRIMARY KEY, amount REAL);"
            "INSERT INTO invoices(amount) VALUES (12.5);");
    }
    const std::string before = read_all(path);
    auto store = UsageStore::open(dir.path());
    ASSERT_FALSE(store);
    EXPECT_TRUE(contains(store.error().what, path + " is not a gpukill usage history"))
        << store.error().what;
    EXPECT_TRUE(contains(store.error().what, "will not overwrite it")) << store.error().what;
    EXPECT_FALSE(UsageStore::open_read_only(dir.path()));
    EXPECT_EQ(read_all(path), before);
}

TEST(UsageStoreFiles, AFileThatIsNotSqliteIsRefusedAndLeftAlone) {
    TempDir dir;
    const std::string path = dir / "usage.sqlite3";
    const std::string text = "these are my notes, not a database\n" + std::string(5000, 'n');
    host_test::write_file(path, text);
    auto store = UsageStore::open(dir.path());
    ASSERT_FALSE(store);
    EXPECT_TRUE(contains(store.error().what, path)) << store.error().what;
    EXPECT_TRUE(contains(store.error().what, "not an SQLite database")) << store.error().what;
    EXPECT_EQ(store.error().what.find('\n'), std::string::npos);
    auto reader = UsageStore::open_read_only(dir.path());
    ASSERT_FALSE(reader);
    EXPECT_TRUE(contains(reader.error().what, "not an SQLite database")) << reader.error().what;
    EXPECT_EQ(read_all(path), text);
}

TEST(UsageStoreFiles, ANewerSchemaIsRefusedForReadingAndWriting) {
    TempDir dir;
    {
        auto store = UsageStore::open(dir.path());
        ASSERT_TRUE(store);
        ASSERT_TRUE((*store)->record(make_snapshot(kBase, {make_gpu(0)}, {{}})));
    }
    {
        RawDb raw(dir / "usage.sqlite3");
        raw.exec("PRAGMA user_version = 2");
    }
    for (int read_only = 0; read_only < 2; ++read_only) {
        auto opened =
            read_only ? UsageStore::open_read_only(dir.path()) : UsageStore::open(dir.path());
        ASSERT_FALSE(opened);
        EXPECT_TRUE(contains(opened.error().what, dir / "usage.sqlite3")) << opened.error().what;
        EXPECT_TRUE(contains(opened.error().what,
                             "newer gpukill (history schema 2; this gpukill "
                             "reads up to 1)"))
            << opened.error().what;
    }
    RawDb raw(dir / "usage.sqlite3");
    EXPECT_EQ(raw.integer("SELECT count(*) FROM gpu_samples"), 1);  // untouched
}

// 40 samples of 30 processes with long command lines: a file of many pages.
void fill_history(const std::string& state_dir) {
    auto store = UsageStore::open(state_dir);
    ASSERT_TRUE(store);
    std::vector<ProcessSpec> processes;
    for (int p = 0; p < 30; ++p) {
        processes.push_back({.pid = 100 + p, .cmdline = {"python", std::string(600, 'a')}});
    }
    for (int i = 0; i < 40; ++i) {
        for (ProcessSpec& spec : processes) spec.start_ticks = static_cast<std::uint64_t>(i);
        ASSERT_TRUE((*store)->record(make_snapshot(kBase + i * kMinute, {make_gpu(0)}, processes)));
    }
}

TEST(UsageStoreFiles, ADamagedFileIsAnErrorNamingItNeverACrash) {
    TempDir dir;
    const std::string path = dir / "usage.sqlite3";
    ASSERT_NO_FATAL_FAILURE(fill_history(dir.path()));
    {
        // Everything into the main file, so the damage below hits the samples.
        RawDb raw(path);
        raw.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    }
    ASSERT_FALSE(std::filesystem::exists(path + "-wal"));
    const auto size = std::filesystem::file_size(path);
    ASSERT_GT(size, 3 * 4096u);
    {
        std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
        file.seekp(4096);  // page 2 onwards: the schema's and the tables' b-tree pages
        const std::string garbage(size - 8192, '\xA5');
        file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
    }
    std::string message;
    auto store = UsageStore::open(dir.path());
    if (!store) {
        message = store.error().what;
    } else {
        auto samples = (*store)->process_samples({});
        auto written = (*store)->record(make_snapshot(kBase + kDay, {make_gpu(0)}, {{}}));
        ASSERT_FALSE(samples && written) << "a damaged file read back without complaint";
        message = !samples ? samples.error().what : written.error().what;
    }
    EXPECT_TRUE(contains(message, path)) << message;
    EXPECT_TRUE(contains(message, "corrupt") || contains(message, "not an SQLite database") ||
                contains(message, "damaged"))
        << message;
    EXPECT_EQ(message.find('\n'), std::string::npos);
}

// One damaged page that no query of a `list` run would touch: the writer once kept
// appending to such a file and `audit` answered from it. Both refuse it now, before
// anything is written, and the file is left as it was.
TEST(UsageStoreFiles, OneDamagedPageIsFoundBeforeAnythingIsWritten) {
    TempDir dir;
    const std::string path = dir / "usage.sqlite3";
    ASSERT_NO_FATAL_FAILURE(fill_history(dir.path()));
    std::int64_t pages = 0;
    {
        RawDb raw(path);
        raw.exec("PRAGMA wal_checkpoint(TRUNCATE)");
        pages = raw.integer("PRAGMA page_count");
    }
    ASSERT_GT(pages, 8);
    {
        // One page in the middle of the samples' b-tree.
        std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
        file.seekp(static_cast<std::streamoff>(pages / 2) * 4096);
        const std::string garbage(4096, '\x5a');
        file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
    }
    {
        RawDb raw(path);
        ASSERT_NE(raw.integer("SELECT count(*) FROM pragma_integrity_check WHERE "
                              "integrity_check = 'ok'"),
                  1)
            << "the damage was not damage";
    }
    const std::string before = read_all(path);
    auto writer = UsageStore::open(dir.path());
    ASSERT_FALSE(writer) << "a damaged history was opened for writing";
    EXPECT_TRUE(contains(writer.error().what, path + ": the database is corrupt"))
        << writer.error().what;
    EXPECT_EQ(writer.error().what.find('\n'), std::string::npos);
    auto reader = UsageStore::open_read_only(dir.path());
    ASSERT_FALSE(reader) << "a damaged history was answered from";
    EXPECT_TRUE(contains(reader.error().what, "corrupt")) << reader.error().what;
    EXPECT_EQ(read_all(path), before);
}

TEST(UsageStoreFiles, AStateDirectoryThisUserCannotWriteIsOneLine) {
    TempDir dir;
    ASSERT_EQ(::chmod(dir.path().c_str(), 0755), 0);  // nobody may look in, not write
    const std::string state = dir / "state";
    ASSERT_EQ(::mkdir(state.c_str(), 0755), 0);
    if (::geteuid() != 0) {
        ASSERT_EQ(::chmod(state.c_str(), 0555), 0);
    }
    ChildOutcome outcome = in_child([&]() -> std::string {
        if (!drop_to_nobody()) return "skip";
        auto store = UsageStore::open(state);
        return store ? "" : store.error().what;
    });
    if (outcome.exit_code == 77) GTEST_SKIP() << "cannot drop privileges";
    EXPECT_EQ(outcome.message,
              "cannot write usage history " + state + "/usage.sqlite3: Permission denied");
}

TEST(UsageStoreFiles, AFileThisUserCannotWriteIsOneLine) {
    TempDir dir;
    {
        auto store = UsageStore::open(dir.path());
        ASSERT_TRUE(store);
    }
    ASSERT_EQ(::chmod(dir.path().c_str(), 0777), 0);
    ASSERT_EQ(::chmod((dir / "usage.sqlite3").c_str(), 0444), 0);
    ChildOutcome outcome = in_child([&]() -> std::string {
        if (!drop_to_nobody()) return "skip";
        auto store = UsageStore::open(dir.path());
        return store ? "" : store.error().what;
    });
    if (outcome.exit_code == 77) GTEST_SKIP() << "cannot drop privileges";
    EXPECT_EQ(outcome.message,
              "cannot write usage history " + dir.path() + "/usage.sqlite3: Permission denied");
}

// A small tmpfs in a private mount namespace: the only honest full disk. Skipped where
// the test may not mount (unprivileged runs).
TEST(UsageStoreFiles, AFullDiskIsOneLineAndTheStoreStaysUsable) {
    TempDir dir;
    ChildOutcome outcome = in_child([&]() -> std::string {
        if (::unshare(CLONE_NEWNS) != 0 ||
            ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
            ::mount("tmpfs", dir.path().c_str(), "tmpfs", 0, "size=256k") != 0) {
            return "skip";
        }
        auto store = UsageStore::open(dir.path());
        if (!store) return "open failed: " + store.error().what;
        std::vector<ProcessSpec> processes;
        for (int p = 0; p < 10; ++p) {
            processes.push_back({.pid = 100 + p, .cmdline = {"python", std::string(3000, 'f')}});
        }
        for (int i = 0; i < 1000; ++i) {
            for (ProcessSpec& spec : processes) spec.start_ticks = static_cast<std::uint64_t>(i);
            auto written =
                (*store)->record(make_snapshot(kBase + i * kSecond, {make_gpu(0)}, processes));
            if (!written) {
                // Earlier samples are still readable after the failed write.
                auto samples = (*store)->gpu_samples({});
                if (!samples || samples->empty())
                    return "unreadable after: " + written.error().what;
                return written.error().what;
            }
        }
        return "never full";
    });
    if (outcome.exit_code == 77) GTEST_SKIP() << "cannot mount a tmpfs here";
    EXPECT_EQ(outcome.message,
              "cannot record usage history in " + dir.path() + "/usage.sqlite3: the disk is full");
}

// Four processes create one new file at the same moment and then write 40 snapshots
// each, interleaved: every sample arrives and none fails on the lock.
TEST(UsageStoreFiles, ConcurrentWritersAllGetTheirSamplesIn) {
    TempDir dir;
    constexpr int kWriters = 4;
    constexpr int kSnapshots = 40;
    int gate[2];
    ASSERT_EQ(::pipe(gate), 0);
    std::vector<pid_t> children;
    for (int w = 0; w < kWriters; ++w) {
        const pid_t pid = ::fork();
        if (pid == 0) {
            ::close(gate[1]);
            char byte;
            while (::read(gate[0], &byte, 1) > 0) {
            }
            auto store = UsageStore::open(dir.path(), {.busy_timeout_ms = 5000});
            if (!store) ::_exit(2);
            for (int i = 0; i < kSnapshots; ++i) {
                ProcessSpec spec{.pid = 1000 + w};
                // Distinct times: writer w records at i seconds plus w milliseconds.
                auto snapshot =
                    make_snapshot(kBase + i * kSecond + w, {make_gpu(0), make_gpu(1)}, {spec});
                if (!(*store)->record(snapshot)) ::_exit(3);
            }
            ::_exit(0);
        }
        children.push_back(pid);
    }
    ::close(gate[0]);
    ::close(gate[1]);  // open the gate
    for (pid_t pid : children) EXPECT_EQ(wait_exit_code(pid), 0);
    auto reader = UsageStore::open_read_only(dir.path());
    ASSERT_TRUE(reader) << reader.error().what;
    EXPECT_EQ((*reader)->process_samples({})->size(),
              static_cast<std::size_t>(kWriters * kSnapshots));
    EXPECT_EQ((*reader)->gpu_samples({})->size(),
              static_cast<std::size_t>(2 * kWriters * kSnapshots));
}

}  // namespace
}  // namespace gpukill::history

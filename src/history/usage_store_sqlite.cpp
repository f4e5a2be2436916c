// UsageStore over SQLite (usage_store.hpp). The schema is in usage_schema.cpp; this
// file writes snapshots, reads samples back and enforces the retention.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>

#include "audit/envelope.hpp"
#include "history/sqlite_handle.hpp"
#include "history/usage_queries.hpp"
#include "history/usage_schema.hpp"
#include "history/usage_store.hpp"
#include "host/state_dir.hpp"
#include "model/start_time.hpp"
#include "sys/fd_io.hpp"

namespace gpukill::history {
namespace {

constexpr const char* kRecording = "cannot record usage history in";

// quick_check reads the whole file, so a writer (every `list`) checks a file this small
// each time (under ~15 ms) and a larger one at most once an hour; PATH.checked's mtime
// is the last clean check. A reader (`audit`, run by a person) always checks.
constexpr std::int64_t kAlwaysCheckBytes = 4LL << 20;
constexpr std::chrono::hours kCheckInterval{1};

bool page_check_due(const std::string& path, std::int64_t file_bytes) {
    if (file_bytes <= kAlwaysCheckBytes) return true;
    struct stat stamp {};
    if (::lstat((path + ".checked").c_str(), &stamp) != 0 || !S_ISREG(stamp.st_mode)) return true;
    const auto checked = std::chrono::system_clock::from_time_t(stamp.st_mtim.tv_sec);
    return std::chrono::system_clock::now() - checked >= kCheckInterval;
}

// Best effort: a stamp that cannot be written only means the next writer checks again.
void stamp_page_check(const std::string& path) {
    UniqueFd stamp(::open((path + ".checked").c_str(),
                          O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK,
                          kStateFileMode));
    if (stamp) ::futimens(stamp.get(), nullptr);
}
constexpr const char* kPruning = "cannot enforce the usage history's retention in";

// Retention deletes run at most this often, whatever the number of writers: the time of
// the last one is kept in the meta table.
constexpr std::int64_t kRetentionEveryMs = 60'000;
// Freed pages handed back to the file system per retention run (4 KiB pages: 16 MiB),
// so one run stays short while the file still shrinks over a few runs.
constexpr int kVacuumPagesPerRun = 4096;
// Command lines are stored up to this many bytes: a history of a month of samples must
// not be dominated by one process with megabytes of arguments.
constexpr std::size_t kMaxCommandBytes = 4096;

std::int64_t wall_clock_ms() {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::optional<std::int64_t> as_int(const std::optional<std::uint64_t>& value) {
    if (!value) return std::nullopt;
    return static_cast<std::int64_t>(std::min<std::uint64_t>(*value, INT64_MAX));
}

template <class T>
std::optional<std::int64_t> widen(const std::optional<T>& value) {
    if (!value) return std::nullopt;
    return static_cast<std::int64_t>(*value);
}

std::string command_text(const ProcessInfo& info) {
    std::string command = audit::shell_join(info.cmdline);
    if (command.size() > kMaxCommandBytes) command.resize(kMaxCommandBytes);
    return command;
}

std::optional<std::string> container_text(const ProcessInfo& info) {
    if (!info.container) return std::nullopt;
    if (!info.container->id.empty()) return info.container->id;
    if (info.container->pod_uid) return info.container->pod_uid;
    return info.container->runtime;
}

// The file is made here, not by SQLite, for its mode (0640: samples name users and
// their command lines) and to fail early, with the OS reason, where it cannot be written.
Result<void> ensure_writable_file(const std::string& path) {
    UniqueFd fd(::open(path.c_str(),
                       O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK,
                       kStateFileMode));
    if (!fd) return std::unexpected(os_error("cannot write usage history " + path, errno));
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) {
        return std::unexpected(os_error("cannot write usage history " + path, errno));
    }
    if (!S_ISREG(st.st_mode))
        return fail("cannot use usage history " + path + ": not a regular file");
    return {};
}

class SqliteUsageStore final : public UsageStore {
  public:
    SqliteUsageStore(sqlite::Database db, UsageStoreOptions options)
        : db_(std::move(db)), options_(options) {}

    Result<void> record(const Snapshot& snapshot) override;
    Result<std::vector<GpuSample>> gpu_samples(const SampleQuery& query) override;
    Result<std::vector<ProcessSample>> process_samples(const SampleQuery& query) override;
    Result<void> enforce_retention(std::int64_t now_unix_ms) override;
    const std::string& path() const override { return db_.path(); }

  private:
    Result<bool> too_close_to_newest(std::int64_t time_ms);
    Result<std::int64_t> gpu_id(const Gpu& gpu, std::int64_t time_ms);
    Result<std::int64_t> process_id(const Snapshot& snapshot, const SnapshotProcess& process);
    Result<void> insert_samples(const Snapshot& snapshot);
    Result<bool> retention_due(std::int64_t now_ms);
    Result<std::int64_t> delete_expired(std::int64_t now_ms);
    Result<void> vacuum_some();

    sqlite::Database db_;
    UsageStoreOptions options_;
};

Result<bool> SqliteUsageStore::too_close_to_newest(std::int64_t time_ms) {
    auto newest = db_.query_int("SELECT max(time_unix_ms) FROM gpu_samples", kRecording);
    if (!newest) return std::unexpected(newest.error());
    if (!*newest) return false;
    const std::int64_t distance = std::llabs(time_ms - **newest);
    return distance < std::max<std::int64_t>(options_.min_interval_ms, 1);
}

Result<std::int64_t> SqliteUsageStore::gpu_id(const Gpu& gpu, std::int64_t time_ms) {
    const GpuReading& r = gpu.reading;
    auto find = db_.prepare(
        "SELECT id FROM gpus WHERE uuid IS ?1 AND name IS ?2 AND pci_bus_id IS ?3 AND "
        "memory_total_bytes IS ?4 ORDER BY id DESC LIMIT 1",
        kRecording);
    if (!find) return std::unexpected(find.error());
    find->bind(1, r.uuid);
    find->bind(2, r.name);
    find->bind(3, r.pci_bus_id);
    find->bind(4, as_int(r.memory_total_bytes));
    auto row = find->step();
    if (!row) return std::unexpected(row.error());
    if (*row) {
        const std::int64_t id = find->column_int(0);
        auto seen = db_.prepare(
            "UPDATE gpus SET last_seen_unix_ms = max(last_seen_unix_ms, ?1) WHERE id = ?2",
            kRecording);
        if (!seen) return std::unexpected(seen.error());
        seen->bind(1, time_ms);
        seen->bind(2, id);
        if (auto updated = seen->run(); !updated) return std::unexpected(updated.error());
        return id;
    }
    auto insert = db_.prepare(
        "INSERT INTO gpus(uuid, name, pci_bus_id, memory_total_bytes, last_seen_unix_ms) "
        "VALUES (?1, ?2, ?3, ?4, ?5)",
        kRecording);
    if (!insert) return std::unexpected(insert.error());
    insert->bind(1, r.uuid);
    insert->bind(2, r.name);
    insert->bind(3, r.pci_bus_id);
    insert->bind(4, as_int(r.memory_total_bytes));
    insert->bind(5, time_ms);
    if (auto inserted = insert->run(); !inserted) return std::unexpected(inserted.error());
    return sqlite3_last_insert_rowid(db_.get());
}

// A process's descriptive fields are stored once per identity; a new row only when they
// change (a process that renames itself keeps both names in the history).
Result<std::int64_t> SqliteUsageStore::process_id(const Snapshot& snapshot,
                                                  const SnapshotProcess& process) {
    const ProcessInfo& info = process.info;
    const std::int64_t time_ms = snapshot.timestamp_unix_ms;
    const std::string command = command_text(info);
    const std::optional<std::string> container = container_text(info);
    auto find = db_.prepare(
        "SELECT id FROM processes WHERE pid = ?1 AND start_time_ticks = ?2 AND uid IS ?3 AND "
        "user = ?4 AND name = ?5 AND command = ?6 AND container IS ?7 "
        "ORDER BY id DESC LIMIT 1",
        kRecording);
    if (!find) return std::unexpected(find.error());
    find->bind(1, static_cast<std::int64_t>(info.pid));
    find->bind(2, static_cast<std::int64_t>(info.start_time_ticks));
    find->bind(3, widen(info.uid));
    find->bind(4, std::string_view(info.user));
    find->bind(5, std::string_view(info.comm));
    find->bind(6, std::string_view(command));
    find->bind(7, container);
    auto row = find->step();
    if (!row) return std::unexpected(row.error());
    if (*row) {
        const std::int64_t id = find->column_int(0);
        auto seen = db_.prepare(
            "UPDATE processes SET last_seen_unix_ms = max(last_seen_unix_ms, ?1) WHERE id = ?2",
            kRecording);
        if (!seen) return std::unexpected(seen.error());
        seen->bind(1, time_ms);
        seen->bind(2, id);
        if (auto updated = seen->run(); !updated) return std::unexpected(updated.error());
        return id;
    }
    std::optional<std::int64_t> started;
    if (snapshot.boot_time_unix_s) {
        started = start_time_unix_ms(info.start_time_ticks, *snapshot.boot_time_unix_s,
                                     snapshot.clock_ticks_per_second);
    }
    auto insert = db_.prepare(
        "INSERT INTO processes(pid, start_time_ticks, start_time_unix_ms, uid, user, name, "
        "command, container, first_seen_unix_ms, last_seen_unix_ms) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9)",
        kRecording);
    if (!insert) return std::unexpected(insert.error());
    insert->bind(1, static_cast<std::int64_t>(info.pid));
    insert->bind(2, static_cast<std::int64_t>(info.start_time_ticks));
    insert->bind(3, started);
    insert->bind(4, widen(info.uid));
    insert->bind(5, std::string_view(info.user));
    insert->bind(6, std::string_view(info.comm));
    insert->bind(7, std::string_view(command));
    insert->bind(8, container);
    insert->bind(9, time_ms);
    if (auto inserted = insert->run(); !inserted) return std::unexpected(inserted.error());
    return sqlite3_last_insert_rowid(db_.get());
}

Result<void> SqliteUsageStore::insert_samples(const Snapshot& snapshot) {
    const std::int64_t time_ms = snapshot.timestamp_unix_ms;
    auto gpu_sample = db_.prepare(
        "INSERT OR IGNORE INTO gpu_samples(time_unix_ms, gpu_index, gpu_id, memory_used_bytes, "
        "utilization_percent, temperature_celsius, power_watts, process_count) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        kRecording);
    if (!gpu_sample) return std::unexpected(gpu_sample.error());
    for (const Gpu& gpu : snapshot.gpus) {
        auto id = gpu_id(gpu, time_ms);
        if (!id) return std::unexpected(id.error());
        gpu_sample->bind(1, time_ms);
        gpu_sample->bind(2, static_cast<std::int64_t>(gpu.index));
        gpu_sample->bind(3, *id);
        gpu_sample->bind(4, as_int(gpu.reading.memory_used_bytes));
        gpu_sample->bind(5, widen(gpu.reading.utilization_percent));
        gpu_sample->bind(6, widen(gpu.reading.temperature_celsius));
        gpu_sample->bind(7, gpu.reading.power_watts);
        gpu_sample->bind(8, static_cast<std::int64_t>(gpu.process_count));
        if (auto inserted = gpu_sample->run(); !inserted) return inserted;
    }
    auto process_sample = db_.prepare(
        "INSERT OR IGNORE INTO process_samples(time_unix_ms, gpu_index, process_id, "
        "memory_bytes, utilization_percent, orphaned) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        kRecording);
    if (!process_sample) return std::unexpected(process_sample.error());
    for (const SnapshotProcess& process : snapshot.processes) {
        // Without its /proc details a process has no identity to file samples under; an
        // observer (a monitoring client) uses no GPU to account for.
        if (!process.info_complete || process.gpus.empty() || process.observer()) continue;
        auto id = process_id(snapshot, process);
        if (!id) return std::unexpected(id.error());
        for (const ProcessGpuUse& use : process.gpus) {
            process_sample->bind(1, time_ms);
            process_sample->bind(2, static_cast<std::int64_t>(use.gpu_index));
            process_sample->bind(3, *id);
            process_sample->bind(4, as_int(use.memory_bytes));
            process_sample->bind(5, widen(use.utilization_percent));
            process_sample->bind(6, static_cast<std::int64_t>(process.orphaned ? 1 : 0));
            if (auto inserted = process_sample->run(); !inserted) return inserted;
        }
    }
    return {};
}

Result<bool> SqliteUsageStore::retention_due(std::int64_t now_ms) {
    auto last = db_.query_int(
        "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'last_retention_unix_ms'", kPruning);
    if (!last) return std::unexpected(last.error());
    // Either direction: a clock set back by a day must not stop retention for a day.
    return !*last || std::llabs(now_ms - **last) >= kRetentionEveryMs;
}

// Inside the caller's transaction. Returns how many samples went.
Result<std::int64_t> SqliteUsageStore::delete_expired(std::int64_t now_ms) {
    const auto retention_ms = static_cast<std::int64_t>(options_.retention_days * 86'400'000.0);
    const std::int64_t cutoff = now_ms - retention_ms;
    std::int64_t deleted = 0;
    // Samples first; a process or GPU row goes once its last sample is older than the
    // cutoff, so every remaining sample still finds its row.
    for (const char* sql : {"DELETE FROM process_samples WHERE time_unix_ms < ?1",
                            "DELETE FROM gpu_samples WHERE time_unix_ms < ?1",
                            "DELETE FROM processes WHERE last_seen_unix_ms < ?1",
                            "DELETE FROM gpus WHERE last_seen_unix_ms < ?1"}) {
        auto statement = db_.prepare(sql, kPruning);
        if (!statement) return std::unexpected(statement.error());
        statement->bind(1, cutoff);
        if (auto ran = statement->run(); !ran) return std::unexpected(ran.error());
        deleted += sqlite3_changes(db_.get());
    }
    auto mark = db_.prepare(
        "INSERT INTO meta(key, value) VALUES ('last_retention_unix_ms', ?1) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        kPruning);
    if (!mark) return std::unexpected(mark.error());
    mark->bind(1, std::string_view(std::to_string(now_ms)));
    if (auto marked = mark->run(); !marked) return std::unexpected(marked.error());
    return deleted;
}

// Hands a bounded number of free pages back to the file system, outside any transaction.
Result<void> SqliteUsageStore::vacuum_some() {
    return db_.exec(fmt::format("PRAGMA incremental_vacuum({})", kVacuumPagesPerRun), kPruning);
}

Result<void> SqliteUsageStore::record(const Snapshot& snapshot) {
    const std::int64_t time_ms = snapshot.timestamp_unix_ms;
    auto transaction = sqlite::Transaction::begin(db_, kRecording);
    if (!transaction) return std::unexpected(transaction.error());
    if (!snapshot.gpus.empty()) {
        auto skip = too_close_to_newest(time_ms);
        if (!skip) return std::unexpected(skip.error());
        if (!*skip) {
            if (auto inserted = insert_samples(snapshot); !inserted) return inserted;
        }
    }
    auto due = retention_due(time_ms);
    if (!due) return std::unexpected(due.error());
    std::int64_t deleted = 0;
    if (*due) {
        auto pruned = delete_expired(time_ms);
        if (!pruned) return std::unexpected(pruned.error());
        deleted = *pruned;
    }
    if (auto committed = transaction->commit(); !committed) return committed;
    if (deleted > 0) return vacuum_some();
    return {};
}

Result<void> SqliteUsageStore::enforce_retention(std::int64_t now_unix_ms) {
    auto transaction = sqlite::Transaction::begin(db_, kPruning);
    if (!transaction) return std::unexpected(transaction.error());
    auto pruned = delete_expired(now_unix_ms);
    if (!pruned) return std::unexpected(pruned.error());
    if (auto committed = transaction->commit(); !committed) return committed;
    return vacuum_some();
}

Result<std::vector<GpuSample>> SqliteUsageStore::gpu_samples(const SampleQuery& query) {
    return query_gpu_samples(db_, query);
}

Result<std::vector<ProcessSample>> SqliteUsageStore::process_samples(const SampleQuery& query) {
    return query_process_samples(db_, query);
}

}  // namespace

Result<std::unique_ptr<UsageStore>> UsageStore::open(const std::string& state_dir,
                                                     UsageStoreOptions options) {
    if (auto made = make_state_directory(without_trailing_slashes(state_dir)); !made) {
        return std::unexpected(made.error());
    }
    auto dir = resolved_state_directory(state_dir);
    if (!dir) return std::unexpected(dir.error());
    const std::string path = state_file_path(*dir, kUsageStoreFileName);
    if (auto file = ensure_writable_file(path); !file) return std::unexpected(file.error());
    // Writers opening a new, empty file at once would race to set its journal mode, which
    // SQLite answers with SQLITE_BUSY without waiting. An flock on the file (independent of
    // SQLite's own fcntl locks) makes them create the schema one after the other.
    UniqueFd creation_lock;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && st.st_size == 0) {
        creation_lock = UniqueFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
        if (creation_lock) ::flock(creation_lock.get(), LOCK_EX);
    }
    auto db = sqlite::Database::open(path, SQLITE_OPEN_READWRITE, options.busy_timeout_ms);
    if (!db) return std::unexpected(db.error());
    if (auto schema = prepare_writable_schema(*db, wall_clock_ms()); !schema) {
        return std::unexpected(schema.error());
    }
    if (::stat(path.c_str(), &st) == 0 && page_check_due(path, st.st_size)) {
        if (auto pages = check_pages(*db); !pages) return std::unexpected(pages.error());
        stamp_page_check(path);
    }
    return std::make_unique<SqliteUsageStore>(std::move(*db), options);
}

Result<std::unique_ptr<UsageStore>> UsageStore::open_read_only(const std::string& state_dir,
                                                               UsageStoreOptions options) {
    auto dir = resolved_state_directory(state_dir);
    const std::string path = state_file_path(dir ? *dir : state_dir, kUsageStoreFileName);
    struct stat st {};
    const int unreadable =
        !dir ? dir.error().errno_value : (::lstat(path.c_str(), &st) == 0 ? 0 : errno);
    if (unreadable == ENOENT) {
        return fail(fmt::format("no usage history at {} yet; it is recorded by gpukill list "
                                "and gpukill list --watch",
                                path),
                    ENOENT);
    }
    if (unreadable != 0) {
        return std::unexpected(os_error("cannot read usage history " + path, unreadable));
    }
    // A FIFO or device here would block the reader forever or feed it without end.
    if (!S_ISREG(st.st_mode)) {
        return fail("cannot read usage history " + path + ": not a regular file", EINVAL);
    }
    auto db = sqlite::Database::open(path, SQLITE_OPEN_READONLY, options.busy_timeout_ms);
    if (!db) return std::unexpected(db.error());
    if (auto schema = check_readable_schema(*db); !schema) return std::unexpected(schema.error());
    if (auto pages = check_pages(*db); !pages) return std::unexpected(pages.error());
    return std::make_unique<SqliteUsageStore>(std::move(*db), options);
}

}  // namespace gpukill::history

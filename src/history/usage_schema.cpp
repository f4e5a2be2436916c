#include "history/usage_schema.hpp"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <string>

#include "model/quoted_text.hpp"

namespace gpukill::history {
namespace {

constexpr const char* kChecking = "cannot read usage history";
constexpr const char* kCreating = "cannot create usage history";

// Samples are WITHOUT ROWID tables keyed by time first: the key is the time index,
// range scans and retention deletes walk it in order, and a second writer recording
// the same millisecond cannot duplicate a sample (INSERT OR IGNORE). Text that repeats
// in every sample (command lines, GPU names) lives once in `processes` and `gpus`.
constexpr const char* kCreateTables = R"sql(
CREATE TABLE meta(
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE gpus(
    id INTEGER PRIMARY KEY,
    uuid TEXT,
    name TEXT,
    pci_bus_id TEXT,
    memory_total_bytes INTEGER,
    last_seen_unix_ms INTEGER NOT NULL
);
CREATE INDEX gpus_uuid ON gpus(uuid);
CREATE INDEX gpus_last_seen ON gpus(last_seen_unix_ms);
CREATE TABLE gpu_samples(
    time_unix_ms INTEGER NOT NULL,
    gpu_index INTEGER NOT NULL,
    gpu_id INTEGER NOT NULL REFERENCES gpus(id),
    memory_used_bytes INTEGER,
    utilization_percent INTEGER,
    temperature_celsius INTEGER,
    power_watts REAL,
    process_count INTEGER NOT NULL,
    PRIMARY KEY (time_unix_ms, gpu_index)
) WITHOUT ROWID;
CREATE TABLE processes(
    id INTEGER PRIMARY KEY,
    pid INTEGER NOT NULL,
    start_time_ticks INTEGER NOT NULL,
    start_time_unix_ms INTEGER,
    uid INTEGER,
    user TEXT NOT NULL,
    name TEXT NOT NULL,
    command TEXT NOT NULL,
    container TEXT,
    first_seen_unix_ms INTEGER NOT NULL,
    last_seen_unix_ms INTEGER NOT NULL
);
CREATE INDEX processes_identity ON processes(pid, start_time_ticks);
CREATE INDEX processes_user ON processes(user);
CREATE INDEX processes_uid ON processes(uid);
CREATE INDEX processes_last_seen ON processes(last_seen_unix_ms);
CREATE TABLE process_samples(
    time_unix_ms INTEGER NOT NULL,
    gpu_index INTEGER NOT NULL,
    process_id INTEGER NOT NULL REFERENCES processes(id),
    memory_bytes INTEGER,
    utilization_percent INTEGER,
    orphaned INTEGER NOT NULL,
    PRIMARY KEY (time_unix_ms, gpu_index, process_id)
) WITHOUT ROWID;
CREATE INDEX process_samples_process ON process_samples(process_id, time_unix_ms);
)sql";

constexpr std::array<const char*, 5> kTables = {"meta", "gpus", "gpu_samples", "processes",
                                                "process_samples"};

struct Header {
    std::int64_t application_id = 0;
    std::int64_t user_version = 0;
    std::int64_t objects = 0;  // tables, indexes, views, triggers
};

// The first read of the file: a file that is not SQLite fails here with SQLITE_NOTADB.
Result<Header> read_header(sqlite::Database& db, const char* doing) {
    Header header;
    auto id = db.query_int("PRAGMA application_id", doing);
    if (!id) return std::unexpected(id.error());
    auto version = db.query_int("PRAGMA user_version", doing);
    if (!version) return std::unexpected(version.error());
    auto objects = db.query_int("SELECT count(*) FROM sqlite_schema", doing);
    if (!objects) return std::unexpected(objects.error());
    header.application_id = id->value_or(0);
    header.user_version = version->value_or(0);
    header.objects = objects->value_or(0);
    return header;
}

bool is_empty(const Header& header) {
    return header.application_id == 0 && header.user_version == 0 && header.objects == 0;
}

// Ours and of a version this build reads, with every table present.
Result<void> check_ours(sqlite::Database& db, const Header& header) {
    if (header.application_id != kUsageApplicationId) {
        return fail(fmt::format(
            "{} is not a gpukill usage history (application_id {:#x}, {} schema objects); "
            "gpukill will not overwrite it: move it aside or choose another --state-dir",
            db.path(), static_cast<std::uint32_t>(header.application_id), header.objects));
    }
    if (header.user_version > kUsageSchemaVersion) {
        return fail(fmt::format(
            "{} was written by a newer gpukill (history schema {}; this gpukill reads up to "
            "{}): upgrade gpukill, or move the file aside",
            db.path(), header.user_version, kUsageSchemaVersion));
    }
    if (header.user_version < 1) {
        return fail(
            fmt::format("{} carries gpukill's id but no schema version: the file is "
                        "damaged; move it aside to start a new history",
                        db.path()));
    }
    for (const char* table : kTables) {
        auto statement = db.prepare(
            "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?1", kChecking);
        if (!statement) return std::unexpected(statement.error());
        statement->bind(1, std::string_view(table));
        auto row = statement->step();
        if (!row) return std::unexpected(row.error());
        if (!*row || statement->column_int(0) != 1) {
            return fail(
                fmt::format("{} lacks the table {}: the file is damaged; move it aside "
                            "to start a new history",
                            db.path(), table));
        }
    }
    return {};
}

Result<void> create_schema(sqlite::Database& db, std::int64_t now_unix_ms) {
    // auto_vacuum must precede the first table; it lets retention hand freed pages back
    // to the file system a bounded number at a time (PRAGMA incremental_vacuum). WAL
    // before the first write, so the file is never in rollback mode under a reader.
    if (auto set =
            db.exec("PRAGMA auto_vacuum = INCREMENTAL; PRAGMA journal_mode = WAL", kCreating);
        !set) {
        return set;
    }
    auto transaction = sqlite::Transaction::begin(db, kCreating);
    if (!transaction) return std::unexpected(transaction.error());
    auto header = read_header(db, kCreating);
    if (!header) return std::unexpected(header.error());
    if (!is_empty(*header)) return check_ours(db, *header);  // another opener won the race
    if (auto created = db.exec(kCreateTables, kCreating); !created) return created;
    const std::string pragmas = fmt::format("PRAGMA application_id = {}; PRAGMA user_version = {};",
                                            kUsageApplicationId, kUsageSchemaVersion);
    if (auto set = db.exec(pragmas, kCreating); !set) return set;
    auto meta = db.prepare("INSERT INTO meta(key, value) VALUES (?1, ?2)", kCreating);
    if (!meta) return std::unexpected(meta.error());
    const std::array<std::pair<const char*, std::string>, 3> rows = {{
        {"application", "gpukill usage history"},
        {"schema_version", std::to_string(kUsageSchemaVersion)},
        {"created_unix_ms", std::to_string(now_unix_ms)},
    }};
    for (const auto& [key, value] : rows) {
        meta->bind(1, std::string_view(key));
        meta->bind(2, std::string_view(value));
        if (auto inserted = meta->run(); !inserted) return inserted;
    }
    return transaction->commit();
}

}  // namespace

Result<void> prepare_writable_schema(sqlite::Database& db, std::int64_t now_unix_ms) {
    auto header = read_header(db, kChecking);
    if (!header) return std::unexpected(header.error());
    if (is_empty(*header)) {
        if (auto created = create_schema(db, now_unix_ms); !created) return created;
    } else if (auto ours = check_ours(db, *header); !ours) {
        return ours;
    }
    // No checkpoint when a `list` run closes the file: that would cost two syncs per run.
    // The WAL is checkpointed every 1000 pages instead, by whichever writer fills it.
    sqlite3_db_config(db.get(), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
    // WAL: readers (`gpukill audit`) never block the writer and the writer never blocks
    // them. The mode is stored in the file; asking again is a no-op. NORMAL sync is
    // durable in WAL mode except for the last commits on power loss: samples, not records.
    // journal_size_limit keeps the -wal file from staying large after a checkpoint.
    return db.exec(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; "
        "PRAGMA journal_size_limit = 8388608; PRAGMA foreign_keys = OFF;",
        kChecking);
}

Result<void> check_pages(sqlite::Database& db) {
    auto check = db.prepare("PRAGMA quick_check", kChecking);
    if (!check) return std::unexpected(check.error());
    auto row = check->step();
    if (!row) return std::unexpected(row.error());
    const std::string verdict = *row ? check->column_text(0) : std::string("no answer");
    if (verdict == "ok") return {};
    return fail(
        fmt::format("{}: the database is corrupt ({}); gpukill will not overwrite it; "
                    "move it aside to start a new history",
                    db.path(), terminal_safe(verdict.substr(0, 200))));
}

Result<void> check_readable_schema(sqlite::Database& db) {
    auto header = read_header(db, kChecking);
    if (!header) return std::unexpected(header.error());
    if (is_empty(*header)) {
        return fail(fmt::format("{} holds no usage history yet (the file is empty)", db.path()),
                    ENOENT);
    }
    return check_ours(db, *header);
}

}  // namespace gpukill::history

#include "history/sqlite_handle.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

namespace gpukill::history::sqlite {
namespace {

// What a person should do about a file gpukill will not touch.
constexpr const char* kMoveAside =
    "gpukill will not overwrite it; move it aside to start a new history";

std::string os_reason(int system_errno) {
    return system_errno != 0 ? std::strerror(system_errno) : "";
}

std::string describe(sqlite3* db, int code) {
    const int system_errno = db != nullptr ? sqlite3_system_errno(db) : 0;
    // A reader that may not write the directory needs the WAL's -shm file to exist.
    if (code == SQLITE_READONLY_CANTINIT || code == SQLITE_READONLY_CANTLOCK ||
        code == SQLITE_READONLY_DIRECTORY) {
        return "its -wal and -shm files are missing and this user may not create them; they "
               "exist again after the next gpukill list by a user who may write the directory";
    }
    switch (code & 0xff) {
        case SQLITE_NOTADB:
            return fmt::format("not an SQLite database (a foreign or damaged file); {}",
                               kMoveAside);
        case SQLITE_CORRUPT:
            return fmt::format("the database is corrupt; {}", kMoveAside);
        case SQLITE_FULL:
            return "the disk is full";
        case SQLITE_READONLY:
            return "the file is read-only here (no write permission on it or its directory, "
                   "or a read-only file system)";
        case SQLITE_BUSY:
        case SQLITE_LOCKED:
            return "another writer held the database longer than the busy timeout";
        case SQLITE_CANTOPEN:
            return system_errno != 0 ? os_reason(system_errno) : "the file cannot be opened";
        case SQLITE_IOERR:
            if (system_errno == ENOSPC) return "the disk is full";
            if (system_errno != 0) return "I/O error: " + os_reason(system_errno);
            break;
        default:
            break;
    }
    const char* message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code);
    return message != nullptr ? message : sqlite3_errstr(code);
}

}  // namespace

Error make_error(sqlite3* db, const std::string& path, int code, std::string_view doing) {
    const int system_errno = db != nullptr ? sqlite3_system_errno(db) : 0;
    return Error{fmt::format("{} {}: {}", doing, path, describe(db, code)), system_errno};
}

Result<Database> Database::open(const std::string& path, int flags, int busy_timeout_ms) {
    sqlite3* raw = nullptr;
    const int code = sqlite3_open_v2(path.c_str(), &raw, flags | SQLITE_OPEN_NOFOLLOW, nullptr);
    Database db(raw, path);  // closes `raw` on every path, also when open failed
    if (code != SQLITE_OK) return std::unexpected(db.error(code, "cannot open usage history"));
    sqlite3_extended_result_codes(raw, 1);
    sqlite3_busy_timeout(raw, busy_timeout_ms);
    return db;
}

Result<void> Database::exec(std::string_view sql, std::string_view doing) {
    const std::string text(sql);
    const int code = sqlite3_exec(get(), text.c_str(), nullptr, nullptr, nullptr);
    if (code != SQLITE_OK) return std::unexpected(error(code, doing));
    return {};
}

Result<Statement> Database::prepare(std::string_view sql, std::string_view doing) {
    sqlite3_stmt* raw = nullptr;
    const int code =
        sqlite3_prepare_v2(get(), sql.data(), static_cast<int>(sql.size()), &raw, nullptr);
    Statement statement(raw, path_, std::string(doing));
    if (code != SQLITE_OK) return std::unexpected(error(code, doing));
    return statement;
}

Result<std::optional<std::int64_t>> Database::query_int(std::string_view sql,
                                                        std::string_view doing) {
    auto statement = prepare(sql, doing);
    if (!statement) return std::unexpected(statement.error());
    auto row = statement->step();
    if (!row) return std::unexpected(row.error());
    if (!*row) return std::optional<std::int64_t>{};
    return statement->column_optional_int(0);
}

void Statement::bind(int index, std::int64_t value) {
    sqlite3_bind_int64(statement_.get(), index, value);
}

void Statement::bind(int index, double value) {
    sqlite3_bind_double(statement_.get(), index, value);
}

void Statement::bind(int index, std::string_view text) {
    sqlite3_bind_text(statement_.get(), index, text.data(), static_cast<int>(text.size()),
                      SQLITE_TRANSIENT);
}

void Statement::bind_null(int index) {
    sqlite3_bind_null(statement_.get(), index);
}

Result<bool> Statement::step() {
    const int code = sqlite3_step(statement_.get());
    if (code == SQLITE_ROW) return true;
    if (code == SQLITE_DONE) return false;
    return std::unexpected(make_error(sqlite3_db_handle(statement_.get()), path_, code, doing_));
}

Result<void> Statement::run() {
    auto stepped = step();
    reset();
    if (!stepped) return std::unexpected(stepped.error());
    return {};
}

void Statement::reset() {
    sqlite3_reset(statement_.get());
    sqlite3_clear_bindings(statement_.get());
}

std::int64_t Statement::column_int(int column) const {
    return sqlite3_column_int64(statement_.get(), column);
}

double Statement::column_double(int column) const {
    return sqlite3_column_double(statement_.get(), column);
}

std::string Statement::column_text(int column) const {
    const auto* text = sqlite3_column_text(statement_.get(), column);
    const int size = sqlite3_column_bytes(statement_.get(), column);
    if (text == nullptr) return {};
    return std::string(reinterpret_cast<const char*>(text), static_cast<std::size_t>(size));
}

bool Statement::column_is_null(int column) const {
    return sqlite3_column_type(statement_.get(), column) == SQLITE_NULL;
}

std::optional<std::int64_t> Statement::column_optional_int(int column) const {
    if (column_is_null(column)) return std::nullopt;
    return column_int(column);
}

std::optional<double> Statement::column_optional_double(int column) const {
    if (column_is_null(column)) return std::nullopt;
    return column_double(column);
}

std::optional<std::string> Statement::column_optional_text(int column) const {
    if (column_is_null(column)) return std::nullopt;
    return column_text(column);
}

Result<Transaction> Transaction::begin(Database& db, std::string_view doing) {
    if (auto begun = db.exec("BEGIN IMMEDIATE", doing); !begun) {
        return std::unexpected(begun.error());
    }
    return Transaction(db, std::string(doing));
}

Transaction::~Transaction() {
    // Nothing useful can be done if the rollback fails: the connection is closed next and
    // SQLite rolls back an open transaction then, or the next opener recovers the journal.
    if (db_ != nullptr) sqlite3_exec(db_->get(), "ROLLBACK", nullptr, nullptr, nullptr);
}

Result<void> Transaction::commit() {
    Database* db = std::exchange(db_, nullptr);
    if (auto committed = db->exec("COMMIT", doing_); !committed) {
        sqlite3_exec(db->get(), "ROLLBACK", nullptr, nullptr, nullptr);
        return committed;
    }
    return {};
}

}  // namespace gpukill::history::sqlite

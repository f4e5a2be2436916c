// Thin RAII over the SQLite C API for the usage history: a connection and prepared
// statements that finalize themselves, and SQLite failures turned into one-line Error
// values that name the database file and say what to do (full disk, read-only,
// corrupt, locked). Internal to src/history.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "model/result.hpp"

namespace gpukill::history::sqlite {

class Statement;

// One line for a failure with result code `code` on connection `db` (may be null), e.g.
// "cannot record usage history in /var/lib/gpukill/usage.sqlite3: the disk is full".
// `doing` is the verb phrase ("cannot record usage history in"). errno_value is the
// OS error SQLite saw, when there was one.
Error make_error(sqlite3* db, const std::string& path, int code, std::string_view doing);

class Database {
  public:
    // sqlite3_open_v2 with `flags` (SQLITE_OPEN_* plus NOFOLLOW), extended result codes
    // on, and a busy timeout so a second writer waits instead of failing at once.
    static Result<Database> open(const std::string& path, int flags, int busy_timeout_ms);

    Database(Database&&) noexcept = default;
    Database& operator=(Database&&) noexcept = default;

    // Runs SQL without results (several statements allowed).
    Result<void> exec(std::string_view sql, std::string_view doing);
    Result<Statement> prepare(std::string_view sql, std::string_view doing);
    // A one-row, one-integer query (PRAGMA user_version, SELECT count(*)...).
    Result<std::optional<std::int64_t>> query_int(std::string_view sql, std::string_view doing);

    Error error(int code, std::string_view doing) const {
        return make_error(get(), path_, code, doing);
    }

    sqlite3* get() const { return db_.get(); }
    const std::string& path() const { return path_; }

  private:
    struct Closer {
        void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
    };
    Database(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
    std::unique_ptr<sqlite3, Closer> db_;
    std::string path_;
};

class Statement {
  public:
    Statement(Statement&&) noexcept = default;
    Statement& operator=(Statement&&) noexcept = default;

    // Parameters are numbered from 1. Empty optionals bind NULL.
    void bind(int index, std::int64_t value);
    void bind(int index, double value);
    void bind(int index, std::string_view text);
    void bind_null(int index);
    template <class T>
    void bind(int index, const std::optional<T>& value) {
        if (value) {
            bind(index, *value);
        } else {
            bind_null(index);
        }
    }

    // True while there is a row; false when done. Errors name the database.
    Result<bool> step();
    // Runs a statement that returns no rows, then resets it for the next bindings.
    Result<void> run();
    void reset();

    std::int64_t column_int(int column) const;
    double column_double(int column) const;
    std::string column_text(int column) const;
    bool column_is_null(int column) const;
    std::optional<std::int64_t> column_optional_int(int column) const;
    std::optional<double> column_optional_double(int column) const;
    std::optional<std::string> column_optional_text(int column) const;

  private:
    friend class Database;
    struct Finalizer {
        void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
    };
    Statement(sqlite3_stmt* statement, std::string path, std::string doing)
        : statement_(statement), path_(std::move(path)), doing_(std::move(doing)) {}
    std::unique_ptr<sqlite3_stmt, Finalizer> statement_;
    std::string path_;
    std::string doing_;
};

// BEGIN IMMEDIATE ... COMMIT; rolled back by the destructor unless committed.
// IMMEDIATE takes the write lock up front, so a second writer waits on the busy timeout
// instead of failing later on a lock upgrade that no timeout can resolve.
class Transaction {
  public:
    static Result<Transaction> begin(Database& db, std::string_view doing);
    Transaction(Transaction&& other) noexcept
        : db_(std::exchange(other.db_, nullptr)), doing_(std::move(other.doing_)) {}
    Transaction& operator=(Transaction&&) = delete;
    ~Transaction();
    Result<void> commit();

  private:
    Transaction(Database& db, std::string doing) : db_(&db), doing_(std::move(doing)) {}
    Database* db_;
    std::string doing_;
};

}  // namespace gpukill::history::sqlite

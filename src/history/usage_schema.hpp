// The usage history's schema: created in a new file, checked in an existing one.
// A file is ours when its header carries gpukill's PRAGMA application_id and its
// PRAGMA user_version is a schema this build knows; anything else (another program's
// database, a newer gpukill's schema, a damaged file) is refused, never overwritten.
// Internal to src/history; the tables are described in docs/AUDIT.md.
#pragma once

#include <cstdint>

#include "history/sqlite_handle.hpp"
#include "model/result.hpp"

namespace gpukill::history {

// "gpuk" in ASCII: the header's application_id, as `file(1)` and sqlite3 show it.
inline constexpr std::int32_t kUsageApplicationId = 0x6770756b;
inline constexpr int kUsageSchemaVersion = 1;

// Writable connections: creates the schema in an empty file (auto_vacuum=INCREMENTAL,
// WAL journal), or checks an existing one and sets the per-connection pragmas.
// Safe when several processes open a new file at once: creation runs in one
// IMMEDIATE transaction that re-checks for a winner first.
Result<void> prepare_writable_schema(sqlite::Database& db, std::int64_t now_unix_ms);

// Read-only connections: checks that the file is a usage history this build reads.
Result<void> check_readable_schema(sqlite::Database& db);

// PRAGMA quick_check: every page of the file is read and its structure checked (about
// 4 ms per MiB here). Damage SQLite would only meet when a query touched that page is
// an error now ("the database is corrupt (...)"), before anything is written.
Result<void> check_pages(sqlite::Database& db);

}  // namespace gpukill::history

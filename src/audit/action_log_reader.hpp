// Reading the action log (STATE_DIR/audit.jsonl, docs/AUDIT.md) back for
// `gpukill audit --actions`: records in a time window, filtered by user and process.
// Only the current file is read, not the ones logrotate renamed away.
//
// A line that is not a record (cut short by a writer that died mid-write, damaged,
// not JSON) is skipped and counted, never fatal: the log is evidence, and one bad line
// must not hide the rest.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/pattern.hpp"
#include "model/result.hpp"

namespace gpukill::audit {

struct ActionFilter {
    std::int64_t since_unix_ms = 0;
    std::int64_t until_unix_ms = INT64_MAX;
    // Exact account name or uid: the person who ran gpukill (user, sudo_user) or the
    // owner of a target.
    std::optional<std::string> user;
    // Searched in target names (and a refusal's name); records without one never match.
    std::optional<Pattern> process;
};

struct ActionLog {
    std::vector<nlohmann::ordered_json> records;  // matching, in file order
    std::size_t skipped_lines = 0;                // lines that were not records
};

// A JSON object with an integer timestamp_unix_ms and a string event, or nothing.
std::optional<nlohmann::ordered_json> parse_action_line(std::string_view line);

// Whether a record passes the filter.
bool action_matches(const nlohmann::ordered_json& record, const ActionFilter& filter);

// Every line of `in`; blank lines are neither records nor skipped.
Result<ActionLog> scan_action_log(std::istream& in, const ActionFilter& filter);

// The file at `path`. A missing file is an error with errno_value ENOENT.
Result<ActionLog> read_action_log(const std::string& path, const ActionFilter& filter);

}  // namespace gpukill::audit

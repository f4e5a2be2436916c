// Reading guard.yaml (schema and example: docs/GUARD.md, docs/examples/guard.yaml).
//
// Loading is strict and all-or-nothing: invalid YAML, an unknown or repeated key, a
// wrong type, an impossible value (a negative limit, hour 25, a percentage above 100)
// or a contradiction (a user both allowed and blocked on a GPU, overlapping time
// windows with different limits for the same user) is one error line
// "FILE:LINE:COLUMN: what" (1-based), and nothing of the file is used.
#pragma once

#include <string>
#include <string_view>

#include "model/guard_policy.hpp"
#include "model/result.hpp"

namespace gpukill::guard {

inline constexpr const char* kPolicyFileName = "guard.yaml";

// The file's text; `source` names it in errors. An empty document is a policy with
// nothing in it (mode dry-run, no limits, no rules).
Result<Policy> parse_policy(std::string_view text, std::string_view source);

// Reads and parses a file. An unreadable file is an error with its errno (a failure,
// exit 1); a malformed one has errno 0 (invalid, exit 3).
Result<Policy> load_policy_file(const std::string& path);

// CONFIG_DIR/guard.yaml.
std::string default_policy_path(const std::string& config_dir);

}  // namespace gpukill::guard

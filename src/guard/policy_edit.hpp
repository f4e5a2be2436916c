// Editing guard.yaml in place for the compatible flags (--guard-enforce,
// --guard-add-user ...): text in, text out, touching only the lines of what changes, so
// the rest of the file (its comments, its layout) stays as the administrator wrote it.
// yaml-cpp cannot write comments back, so the edits splice text at the positions it
// reports instead of re-emitting the document. The caller checks the result with
// parse_policy before writing it. Pure.
#pragma once

#include <string>
#include <string_view>

#include "model/guard_policy.hpp"
#include "model/result.hpp"

namespace gpukill::guard {

// `mode: X`, replacing the value where the key is, else added before the first key.
Result<std::string> set_mode(std::string_view text, Mode mode);

// Sets `section.key` (section: users, groups or gpus; a block mapping or absent) to
// `flow_value` ("{memory_limit: 8G}"), replacing the entry's lines when it exists (with
// any comment lines inside it; comment lines after it stay), else adding it as the
// section's first entry (and the section at the end of the file when absent).
Result<std::string> set_entry(std::string_view text, std::string_view section, std::string_view key,
                              std::string_view flow_value);

// Removes `section.key`'s lines; an error when there is no such entry.
Result<std::string> remove_entry(std::string_view text, std::string_view section,
                                 std::string_view key);

// One entry of users:, groups: or gpus: as a one-line flow mapping, every value written
// out (sizes as 8G/512M or bytes, durations as 90s/5m/1h30m); action and grace_period
// only when they differ from the policy's top-level ones.
std::string user_flow(const UserRule& rule, const Enforcement& inherited);
std::string group_flow(const GroupRule& rule, const Enforcement& inherited);
std::string gpu_flow(const GpuRule& rule, const Enforcement& inherited);

// "8G", "512M", "1536" (bytes, when no unit divides it)
std::string size_text(std::uint64_t bytes);

}  // namespace gpukill::guard

// "Did you mean" for the command line: the closest known spelling of a mistyped
// command or option, so `gpukill lsit` answers with `list` instead of "not a PID".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpukill::cli {

// Edits (insert, delete, substitute, swap two neighbours) to turn `a` into `b`.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` within a third of its length (at least one edit, at
// most three), the first of equals; empty when none is that close.
std::optional<std::string> closest(std::string_view word,
                                   const std::vector<std::string>& candidates);

}  // namespace gpukill::cli

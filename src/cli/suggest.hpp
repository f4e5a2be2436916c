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
// most three), the first of equals; empty when none is that close, and never `word`
// itself (a suggestion to type what was typed helps nobody).
std::optional<std::string> closest(std::string_view word,
                                   const std::vector<std::string>& candidates);

// The one line for `word`, a long option the parser did not take where it stood: an
// option of `owners` (the commands that take it) given before its command ("--no-rogue
// is check's option: give it after the command (gpukill check --no-rogue)"), else a near
// spelling among `names`, else "unknown option".
std::string unknown_option_message(std::string_view word, const std::vector<std::string>& names,
                                   const std::vector<std::string>& owners);

}  // namespace gpukill::cli

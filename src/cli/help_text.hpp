// `gpukill --help`, `gpukill CMD --help` and `gpukill help CMD`, written from the
// command table (command_docs.hpp) and the parser's own options (command_line.hpp), at
// a given width. Pure.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "cli/command_docs.hpp"
#include "cli/command_line.hpp"

namespace gpukill::cli {

// The commands with one line each, the options every command takes, gpu-kill's
// spellings, and where to look next.
std::string top_level_help(const std::vector<OptionDoc>& common,
                           const std::vector<OptionDoc>& compatible, std::size_t width);

// One command: usage, what it does, its options by group with their defaults,
// examples, exit codes.
std::string command_help(const CommandDoc& doc, const std::vector<OptionDoc>& options,
                         std::size_t width);

// "-p, --pid PID", as the option column and man pages show it.
std::string option_label(const OptionDoc& option);

}  // namespace gpukill::cli

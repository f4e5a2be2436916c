// The man pages, gpukill(1) and gpukill-CMD(1), written in roff (man(7) macros) from
// the same command table and options as the help, so `man gpukill-kill` and `gpukill
// help kill` cannot disagree. Pure.
#pragma once

#include <string>
#include <vector>

#include "cli/command_docs.hpp"
#include "cli/command_line.hpp"

namespace gpukill::cli {

// gpukill(1): the commands, the options every command takes, the exit codes.
std::string top_level_man_page(const std::vector<OptionDoc>& common,
                               const std::vector<OptionDoc>& compatible,
                               const std::string& version);

// gpukill-CMD(1).
std::string command_man_page(const CommandDoc& doc, const std::vector<OptionDoc>& options,
                             const std::string& version);

// Text made safe for roff: backslashes escaped, hyphens made \- (so options copy and
// paste as ASCII), a line starting with '.' or '\'' protected.
std::string roff_escaped(const std::string& text);

}  // namespace gpukill::cli

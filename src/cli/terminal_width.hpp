// How wide the person reading stdout sees it. Only a terminal has a width: output to a
// pipe or a file is never cut or wrapped, so scripts and `| less -S` get every column.
#pragma once

#include "cli/global_options.hpp"
#include "cli/text_wrap.hpp"

namespace gpukill::cli {

// None with --wide or when stdout is no terminal; else COLUMNS when it is a positive
// number (a user narrowing the output on purpose), else the terminal's own width, else
// 80.
OutputWidth stdout_width(bool wide, const Environment& env);

// The width help is written at: the terminal's, at most 100 columns so paragraphs stay
// readable; 80 for a pipe, as man does.
std::size_t help_width(const Environment& env);

}  // namespace gpukill::cli

// Text from outside (process names, file contents) inside a one-line message: in
// double quotes, with quotes, backslashes and control bytes escaped (\x1b), so the
// message stays one line and nothing in it reaches a terminal or log as a control.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpukill {

// Escapes `"` and `\` with a backslash, C0 controls, DEL and bytes that are not valid
// UTF-8 as \xNN, C1 controls and bidirectional formatting characters as \uNNNN.
std::string quote_escaped(std::string_view text);

// For a table cell or a terminal line: every character utf8.hpp calls unsafe for
// display, and every byte that is not valid UTF-8, becomes '?'. Printable UTF-8 stays.
std::string terminal_safe(std::string_view text);

// Arguments joined by spaces, each quoted POSIX-shell style when it is empty or holds
// anything but [A-Za-z0-9_@%+=:,./-], so the line can be pasted back into a shell (what
// the audit records' `command` holds).
std::string shell_join(const std::vector<std::string>& argv);

}  // namespace gpukill

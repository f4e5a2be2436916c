// Text from outside (process names, file contents) inside a one-line message: in
// double quotes, with quotes, backslashes and control bytes escaped (\x1b), so the
// message stays one line and nothing in it reaches a terminal or log as a control.
#pragma once

#include <string>
#include <string_view>

namespace gpukill {

std::string quote_escaped(std::string_view text);

}  // namespace gpukill

// Every diagnostic of the command line is one line on stderr starting "gpukill: "
// (README: errors never go to stdout, which carries results only).
#pragma once

#include <string_view>

namespace gpukill::cli {

void print_error(std::string_view message);

// print_error, then `code` for the caller to return.
int print_error(std::string_view message, int code);

// print_error, then exit_code::invalid_arguments.
int usage_error(std::string_view message);

}  // namespace gpukill::cli

// Every diagnostic of the command line is one line on stderr starting "gpukill: "
// (README: errors never go to stdout, which carries results only).
#pragma once

#include <string>
#include <string_view>

#include "model/result.hpp"

namespace gpukill::cli {

void print_error(std::string_view message);

// print_error, then `code` for the caller to return.
int print_error(std::string_view message, int code);

// print_error, then exit_code::invalid_arguments.
int usage_error(std::string_view message);

// The parser's message in the command line's words: CLI11 says "--pid: 1 required PID
// missing" of an option given without its value, which reads as a PID missing from a
// list; that becomes "--pid needs a value: a PID". Other messages pass unchanged.
std::string parse_error_text(std::string_view what);

// The exit code of an error by its category (README): invalid input and not found 3,
// permission 4, unsupported 5, everything else (unavailable, conflict, refused,
// internal) 1.
int exit_code_for(ErrorCategory category);

// print_error(error.what), then exit_code_for(error.category).
int report_error(const Error& error);

}  // namespace gpukill::cli

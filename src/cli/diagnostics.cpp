#include "cli/diagnostics.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "cli/exit_codes.hpp"

namespace gpukill::cli {

void print_error(std::string_view message) {
    fmt::print(stderr, "gpukill: {}\n", message);
}

int print_error(std::string_view message, int code) {
    print_error(message);
    return code;
}

int usage_error(std::string_view message) {
    return print_error(message, exit_code::invalid_arguments);
}

}  // namespace gpukill::cli

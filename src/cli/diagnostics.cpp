#include "cli/diagnostics.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "cli/json_result.hpp"
#include "engine/outcome_codes.hpp"

namespace gpukill::cli {

void print_error(std::string_view message) {
    fmt::print(stderr, "gpukill: {}\n", message);
    remember_error(std::string(message));
}

int print_error(std::string_view message, int code) {
    print_error(message);
    return code;
}

int usage_error(std::string_view message) {
    return print_error(message, exit_code::invalid_arguments);
}

int exit_code_for(ErrorCategory category) {
    switch (category) {
        case ErrorCategory::invalid_input:
        case ErrorCategory::not_found:
            return exit_code::invalid_arguments;
        case ErrorCategory::permission:
            return exit_code::permission_denied;
        case ErrorCategory::unsupported:
            return exit_code::unsupported;
        case ErrorCategory::refused:
        case ErrorCategory::conflict:
        case ErrorCategory::unavailable:
        case ErrorCategory::internal:
            return exit_code::failure;
    }
    return exit_code::failure;
}

int report_error(const Error& error) {
    return print_error(error.what, exit_code_for(error.category));
}

}  // namespace gpukill::cli

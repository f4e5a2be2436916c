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

std::string parse_error_text(std::string_view what) {
    // "NAME: N required TYPE missing" (CLI::ArgumentMismatch::TypedAtLeast).
    constexpr std::string_view kRequired = " required ";
    constexpr std::string_view kMissing = " missing";
    const std::size_t required = what.find(kRequired);
    if (required == std::string_view::npos || !what.ends_with(kMissing)) return std::string(what);
    const std::size_t colon = what.rfind(": ", required);
    const std::string_view type = what.substr(
        required + kRequired.size(), what.size() - kMissing.size() - required - kRequired.size());
    if (colon == std::string_view::npos) {
        return fmt::format("an option was given without its value ({})", type);
    }
    const std::string_view name = what.substr(0, colon);
    const std::string_view count = what.substr(colon + 2, required - colon - 2);
    const bool one = count == "1";
    return fmt::format("{} needs {}: {}{}", name, one ? "a value" : std::string(count) + " values",
                       one ? "a " : "", type);
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

// Errors at system and vendor edges are values: what failed, why, and what kind of
// failure it is, so each interface can answer in its own terms (the command line with
// its documented exit codes, an HTTP API with a status code) without parsing text.
#pragma once

#include <cerrno>
#include <expected>
#include <string>
#include <utility>

namespace gpukill {

enum class ErrorCategory {
    invalid_input,  // the request or a file is malformed: fix it and ask again
    not_found,      // a named thing (GPU, file, record) does not exist
    refused,        // refused for safety: gpukill will not do this as asked
    permission,     // the OS denied it: more privilege would help
    conflict,       // busy, or the world changed since the plan was shown
    unavailable,    // a file, library or device could not be read or opened
    unsupported,    // this host or build cannot do it at all
    internal,       // gpukill's own fault
};

// "invalid_input", "not_found", ...: the spelling interfaces report.
constexpr const char* to_string(ErrorCategory category) {
    switch (category) {
        case ErrorCategory::invalid_input:
            return "invalid_input";
        case ErrorCategory::not_found:
            return "not_found";
        case ErrorCategory::refused:
            return "refused";
        case ErrorCategory::permission:
            return "permission";
        case ErrorCategory::conflict:
            return "conflict";
        case ErrorCategory::unavailable:
            return "unavailable";
        case ErrorCategory::unsupported:
            return "unsupported";
        case ErrorCategory::internal:
            return "internal";
    }
    return "internal";
}

struct Error {
    std::string
        what;  // one line a person can act on, e.g. "cannot read /proc/42/stat: No such file"
    int errno_value = 0;  // 0 when the failure was not an OS error
    // A failure with an OS error is `unavailable` (or `permission` for EACCES/EPERM)
    // unless its producer said otherwise; one without is malformed input.
    ErrorCategory category = errno_value == 0 ? ErrorCategory::invalid_input
                             : (errno_value == EACCES || errno_value == EPERM)
                                 ? ErrorCategory::permission
                                 : ErrorCategory::unavailable;
};

template <class T>
using Result = std::expected<T, Error>;

inline std::unexpected<Error> fail(std::string what, int errno_value = 0) {
    return std::unexpected<Error>(Error{std::move(what), errno_value});
}

inline std::unexpected<Error> fail(ErrorCategory category, std::string what) {
    return std::unexpected<Error>(Error{std::move(what), 0, category});
}

// The same error, recategorised by a caller that knows better what it means here.
inline Error as(ErrorCategory category, Error error) {
    error.category = category;
    return error;
}

}  // namespace gpukill

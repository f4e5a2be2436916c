// Errors at system and vendor edges are values: what failed and why.
#pragma once

#include <expected>
#include <string>
#include <utility>

namespace gpukill {

struct Error {
    std::string
        what;  // one line a person can act on, e.g. "cannot read /proc/42/stat: No such file"
    int errno_value = 0;  // 0 when the failure was not an OS error
};

template <class T>
using Result = std::expected<T, Error>;

inline std::unexpected<Error> fail(std::string what, int errno_value = 0) {
    return std::unexpected<Error>(Error{std::move(what), errno_value});
}

}  // namespace gpukill

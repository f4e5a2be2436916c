// A failed system call as an exception, with errno's text.
#pragma once

#include <cstring>
#include <stdexcept>
#include <string>

namespace gpukill::bench {

inline std::runtime_error os_failure(const std::string& what, int error) {
    return std::runtime_error(what + ": " + std::strerror(error));
}

}  // namespace gpukill::bench

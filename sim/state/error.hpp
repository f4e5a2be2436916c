#pragma once
// Errors of the simulator are values: a documented exit code and one line of text.

#include <expected>
#include <string>

namespace gpusim {

// gpusim's exit codes (docs/SIMULATOR.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // system or state error (I/O, not a gpusim root)
inline constexpr int kExitDevice = 2;   // the simulated device refused (bad index, out of memory)
inline constexpr int kExitUsage = 3;    // invalid arguments or scenario

struct Error {
    int exit_code = kExitFailure;
    std::string message;
};

template <class T>
using Result = std::expected<T, Error>;

inline std::unexpected<Error> fail(int exit_code, std::string message) {
    return std::unexpected<Error>(Error{exit_code, std::move(message)});
}

// strerror(err) without the thread-safety caveats of strerror.
std::string errno_text(int err);

}  // namespace gpusim

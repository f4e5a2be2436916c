// parse_target_pid: the one gate every typed PID passes. kill(2) gives 0 and negative
// numbers special meanings (the caller's process group, every process, a process
// group), so anything that is not plainly a positive decimal below pid_max is refused
// with a message saying what it would have meant.
#include <charconv>
#include <cstdint>
#include <string>

#include "model/parse_util.hpp"
#include "reclaim/select.hpp"

namespace gpukill::reclaim {
namespace {

bool all_digits(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s) {
        if (!text::is_digit(c)) return false;
    }
    return true;
}

std::string quoted(std::string_view s) {
    return "\"" + std::string(s) + "\"";
}

}  // namespace

Result<pid_t> parse_target_pid(std::string_view argument, pid_t pid_max) {
    if (argument.empty()) return fail("empty PID");
    if (argument.front() == '-' && all_digits(argument.substr(1))) {
        if (argument == "-1") return fail("PID -1 is refused: kill(-1) signals every process");
        return fail("negative PID " + std::string(argument) + " is refused: kill() with it " +
                    "signals the whole process group " + std::string(argument.substr(1)));
    }
    // Decimal digits only: no sign, spaces, hex, exponent. Leading zeros are accepted
    // and decimal ("007" is 7), as kill(1) and the shells read them.
    if (!all_digits(argument))
        return fail(quoted(argument) + " is not a PID (expected a decimal number)");
    std::uint64_t value = 0;
    const auto* last = argument.data() + argument.size();
    const auto [end, ec] = std::from_chars(argument.data(), last, value, 10);
    const auto limit = static_cast<std::uint64_t>(pid_max > 0 ? pid_max : 0);
    if (ec != std::errc{} || end != last || value >= limit) {
        return fail("PID " + std::string(argument) + " is out of range: PIDs on this host are " +
                    "below pid_max (" + std::to_string(pid_max) + ")");
    }
    if (value == 0) return fail("PID 0 is refused: kill(0) signals gpukill's own process group");
    return static_cast<pid_t>(value);
}

}  // namespace gpukill::reclaim

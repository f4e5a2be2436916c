#include "model/human_format.hpp"

#include <fmt/format.h>

#include <array>
#include <ctime>

#include "model/quoted_text.hpp"

namespace gpukill {

std::string format_bytes(std::uint64_t bytes) {
    static constexpr std::array<const char*, 6> units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    if (bytes < 1024) return fmt::format("{} B", bytes);
    double value = static_cast<double>(bytes);
    std::size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < units.size()) {
        value /= 1024.0;
        ++unit;
    }
    // Whole MiB are common (allocations); GiB and up read best with one decimal.
    if (unit <= 2 && value == static_cast<double>(static_cast<std::uint64_t>(value))) {
        return fmt::format("{:.0f} {}", value, units[unit]);
    }
    return fmt::format("{:.1f} {}", value, units[unit]);
}

std::string format_bytes(const std::optional<std::uint64_t>& bytes) {
    return bytes ? format_bytes(*bytes) : "?";
}

std::string printable(std::string_view text) {
    return terminal_safe(text);
}

std::string format_local_time(std::int64_t unix_ms) {
    std::time_t seconds = static_cast<std::time_t>(unix_ms / 1000);
    std::tm local{};
    localtime_r(&seconds, &local);
    return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", local.tm_year + 1900,
                       local.tm_mon + 1, local.tm_mday, local.tm_hour, local.tm_min, local.tm_sec);
}

}  // namespace gpukill

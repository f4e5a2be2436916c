// Time for the guard: the moment of an evaluation with its local-time breakdown, and
// the pure arithmetic of time windows (which days and hours, active or not, overlap).
// Only local_clock reads the host's time zone; tests pass a breakdown of their own.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <expected>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/guard_policy.hpp"
#include "model/result.hpp"

namespace gpukill::guard {

struct LocalTime {
    int weekday = 0;  // 0 = Monday .. 6 = Sunday
    int minute = 0;   // minutes since local midnight, 0..1439
};

// The moment an evaluation judges, injected so every rule is testable.
struct GuardClock {
    std::chrono::system_clock::time_point now;
    LocalTime local;
    std::int64_t unix_ms() const {
        return std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch())
            .count();
    }
};

// `now` in the host's time zone (localtime_r, TZ and /etc/localtime).
GuardClock local_clock(std::chrono::system_clock::time_point now);

// "mon".."sun" -> 0..6; "weekdays" -> Monday to Friday; "weekend" -> Saturday, Sunday.
Result<std::vector<int>> parse_day_names(std::string_view text);

struct HoursError {
    std::string what;
    std::size_t offset = 0;  // where in the text the problem is
};
// "09:00-18:00" -> {540, 1080}; "22:00-06:00" runs past midnight; "00:00-24:00" is the
// whole day. Two-digit hours 00..23 (24 only as "24:00" at the end), minutes 00..59.
std::expected<std::pair<int, int>, HoursError> parse_hours(std::string_view text);

// Whether the window covers `local`: it started on one of its days and has not ended
// (a window past midnight covers the early hours of the day after each of its days).
bool window_active(const TimeWindow& window, LocalTime local);

// The first minute of the week (0 = Monday 00:00) both windows cover, if any.
std::optional<int> first_common_minute(const TimeWindow& a, const TimeWindow& b);

// "sat 00:00"
std::string format_minute_of_week(int minute_of_week);

}  // namespace gpukill::guard

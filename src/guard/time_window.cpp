#include "guard/time_window.hpp"

#include <fmt/format.h>

#include <array>
#include <ctime>

#include "model/quoted_text.hpp"

namespace gpukill::guard {
namespace {

constexpr int kMinutesPerDay = 24 * 60;
constexpr int kMinutesPerWeek = 7 * kMinutesPerDay;
constexpr std::array<std::string_view, 7> kDayNames = {"mon", "tue", "wed", "thu",
                                                       "fri", "sat", "sun"};

// The minutes of the week a window covers, as [begin, end) ranges within the week.
std::vector<std::pair<int, int>> week_ranges(const TimeWindow& window) {
    std::vector<std::pair<int, int>> ranges;
    for (int day : window.days) {
        const int begin = day * kMinutesPerDay + window.start_minute;
        int end = day * kMinutesPerDay + window.end_minute;
        if (window.end_minute <= window.start_minute) end += kMinutesPerDay;
        if (end <= kMinutesPerWeek) {
            ranges.emplace_back(begin, end);
        } else {  // Sunday night into Monday morning
            ranges.emplace_back(begin, kMinutesPerWeek);
            ranges.emplace_back(0, end - kMinutesPerWeek);
        }
    }
    return ranges;
}

// Two digits at text[at], or -1.
int two_digits(std::string_view text, std::size_t at) {
    if (at + 2 > text.size()) return -1;
    const char a = text[at];
    const char b = text[at + 1];
    if (a < '0' || a > '9' || b < '0' || b > '9') return -1;
    return (a - '0') * 10 + (b - '0');
}

// "HH:MM" at text[at]; is_end allows 24:00.
std::expected<int, HoursError> time_of_day(std::string_view text, std::size_t at, bool is_end) {
    const int hour = two_digits(text, at);
    const int minute = two_digits(text, at + 3);
    if (hour < 0 || at + 2 >= text.size() || text[at + 2] != ':' || minute < 0) {
        return std::unexpected(HoursError{
            fmt::format("{} is not a range of times such as \"09:00-18:00\"", quote_escaped(text)),
            at});
    }
    if (hour > 24 || (hour == 24 && (!is_end || minute != 0))) {
        return std::unexpected(HoursError{
            fmt::format("hour {} is not an hour of the day (00..23, or 24:00 as an end)", hour),
            at});
    }
    if (minute > 59) {
        return std::unexpected(
            HoursError{fmt::format("minute {} is not a minute (00..59)", minute), at + 3});
    }
    return hour * 60 + minute;
}

}  // namespace

GuardClock local_clock(std::chrono::system_clock::time_point now) {
    const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
    std::tm local{};
    localtime_r(&seconds, &local);
    // tm_wday counts from Sunday; the policy's week starts on Monday.
    return GuardClock{now, LocalTime{(local.tm_wday + 6) % 7, local.tm_hour * 60 + local.tm_min}};
}

Result<std::vector<int>> parse_day_names(std::string_view text) {
    if (text == "weekdays") return std::vector<int>{0, 1, 2, 3, 4};
    if (text == "weekend") return std::vector<int>{5, 6};
    for (std::size_t day = 0; day < kDayNames.size(); ++day) {
        if (text == kDayNames[day]) return std::vector<int>{static_cast<int>(day)};
    }
    return fail(
        fmt::format("{} is not a day (mon, tue, wed, thu, fri, sat, sun, weekdays, "
                    "weekend)",
                    quote_escaped(text)));
}

std::expected<std::pair<int, int>, HoursError> parse_hours(std::string_view text) {
    auto start = time_of_day(text, 0, false);
    if (!start) return std::unexpected(start.error());
    if (text.size() < 6 || text[5] != '-') {
        return std::unexpected(HoursError{
            fmt::format("{} is not a range of times such as \"09:00-18:00\"", quote_escaped(text)),
            std::min<std::size_t>(5, text.size())});
    }
    auto end = time_of_day(text, 6, true);
    if (!end) return std::unexpected(end.error());
    if (text.size() != 11) {
        return std::unexpected(HoursError{"unexpected text after the end time", 11});
    }
    if (*start == *end) {
        return std::unexpected(HoursError{
            fmt::format("{} is empty; write 00:00-24:00 for the whole day", quote_escaped(text)),
            0});
    }
    return std::pair{*start, *end};
}

bool window_active(const TimeWindow& window, LocalTime local) {
    const int minute_of_week = local.weekday * kMinutesPerDay + local.minute;
    for (auto [begin, end] : week_ranges(window)) {
        if (minute_of_week >= begin && minute_of_week < end) return true;
    }
    return false;
}

std::optional<int> first_common_minute(const TimeWindow& a, const TimeWindow& b) {
    std::optional<int> first;
    for (auto [a_begin, a_end] : week_ranges(a)) {
        for (auto [b_begin, b_end] : week_ranges(b)) {
            const int begin = std::max(a_begin, b_begin);
            if (begin < std::min(a_end, b_end) && (!first || begin < *first)) first = begin;
        }
    }
    return first;
}

std::string format_minute_of_week(int minute_of_week) {
    const int day = minute_of_week / kMinutesPerDay;
    const int minute = minute_of_week % kMinutesPerDay;
    return fmt::format("{} {:02}:{:02}", kDayNames[static_cast<std::size_t>(day % 7)], minute / 60,
                       minute % 60);
}

}  // namespace gpukill::guard

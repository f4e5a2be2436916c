// Small text helpers shared by the /proc and /sys parsers. Internal to src/host and
// src/model: pure, allocation-free, and strict (a number is all digits or nothing).
#pragma once

#include <charconv>
#include <concepts>
#include <optional>
#include <string_view>

namespace gpukill::text {

// The whole of `s` as a decimal integer of type T; empty on any stray character,
// sign on an unsigned type, or overflow. std::from_chars never allocates or throws.
template <std::integral T>
std::optional<T> parse_int(std::string_view s) {
    if (s.empty()) return std::nullopt;
    T value{};
    const auto* first = s.data();
    const auto* last = s.data() + s.size();
    auto [end, ec] = std::from_chars(first, last, value, 10);
    if (ec != std::errc{} || end != last) return std::nullopt;
    return value;
}

inline bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

inline bool is_hex_digit(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

inline bool all_of_hex(std::string_view s) {
    for (char c : s) {
        if (!is_hex_digit(c)) return false;
    }
    return true;
}

// Canonical decimal as the kernel prints it: digits only, no leading zero except "0".
inline bool is_canonical_decimal(std::string_view s) {
    if (s.empty() || (s.size() > 1 && s.front() == '0')) return false;
    for (char c : s) {
        if (!is_digit(c)) return false;
    }
    return true;
}

inline std::string_view trim(std::string_view s) {
    constexpr std::string_view space = " \t\n\r\v\f";
    const auto first = s.find_first_not_of(space);
    if (first == std::string_view::npos) return {};
    const auto last = s.find_last_not_of(space);
    return s.substr(first, last - first + 1);
}

// Calls fn(line) for each line of `text`, without the '\n'; a final line without one counts.
template <class Fn>
void for_each_line(std::string_view text, Fn&& fn) {
    while (!text.empty()) {
        const auto nl = text.find('\n');
        if (nl == std::string_view::npos) {
            fn(text);
            return;
        }
        fn(text.substr(0, nl));
        text.remove_prefix(nl + 1);
    }
}

}  // namespace gpukill::text

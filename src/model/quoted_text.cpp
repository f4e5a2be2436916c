#include "model/quoted_text.hpp"

#include <string_view>

#include <fmt/format.h>

#include "model/utf8.hpp"

namespace gpukill {

std::string quote_escaped(std::string_view text) {
    std::string out = "\"";
    for (std::size_t at = 0; at < text.size();) {
        const Utf8Char c = next_utf8(text, at);
        if (c.code == '"' || c.code == '\\') {
            out += '\\';
            out += static_cast<char>(c.code);
        } else if (!c.valid || c.code < 0x20 || c.code == 0x7f) {
            out += fmt::format("\\x{:02x}", c.code);
        } else if (is_unsafe_for_display(c.code)) {
            out += fmt::format("\\u{:04x}", c.code);
        } else {
            out.append(text.substr(at, c.length));
        }
        at += c.length;
    }
    return out + '"';
}

std::string terminal_safe(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t at = 0; at < text.size();) {
        const Utf8Char c = next_utf8(text, at);
        if (!c.valid || is_unsafe_for_display(c.code)) {
            out += '?';
        } else {
            out.append(text.substr(at, c.length));
        }
        at += c.length;
    }
    return out;
}

namespace {

bool shell_safe(char c) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
    return std::string_view("_@%+=:,./-").find(c) != std::string_view::npos;
}

}  // namespace

std::string shell_join(const std::vector<std::string>& argv) {
    std::string joined;
    for (const std::string& arg : argv) {
        if (!joined.empty()) joined += ' ';
        bool safe = !arg.empty();
        for (char c : arg) safe = safe && shell_safe(c);
        if (safe) {
            joined += arg;
            continue;
        }
        // Single quotes keep everything literal; a single quote itself is closed,
        // escaped and reopened.
        joined += '\'';
        for (char c : arg) {
            if (c == '\'') {
                joined += "'\\''";
            } else {
                joined += c;
            }
        }
        joined += '\'';
    }
    return joined;
}

}  // namespace gpukill

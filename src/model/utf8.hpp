// Reading UTF-8 one character at a time, for text from outside (process names, command
// lines, file contents): what a byte sequence decodes to, and which characters must not
// reach a terminal or a log line as they are.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gpukill {

struct Utf8Char {
    std::uint32_t code = 0;  // the code point; for an invalid byte, that byte
    std::size_t length = 1;  // bytes taken
    bool valid = true;       // false: a byte that is not part of a valid sequence
};

// The character starting at `at` (< text.size()). Overlong forms, surrogates and values
// above U+10FFFF are invalid: their first byte is taken alone.
Utf8Char next_utf8(std::string_view text, std::size_t at);

// C0 and C1 controls, DEL, and the bidirectional formatting characters (U+061C,
// U+200E, U+200F, U+202A..U+202E, U+2066..U+2069) that can make a terminal show a name
// other than the one a process has ("gpukill" drawn over "llikupg").
bool is_unsafe_for_display(std::uint32_t code);

}  // namespace gpukill

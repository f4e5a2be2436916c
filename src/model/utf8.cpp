#include "model/utf8.hpp"

namespace gpukill {

Utf8Char next_utf8(std::string_view text, std::size_t at) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(at);
    if (lead < 0x80) return Utf8Char{.code = lead, .length = 1, .valid = true};
    std::size_t length = 0;
    std::uint32_t value = 0;
    std::uint32_t minimum = 0;
    if ((lead & 0xe0) == 0xc0) {
        length = 2, value = lead & 0x1fu, minimum = 0x80;
    } else if ((lead & 0xf0) == 0xe0) {
        length = 3, value = lead & 0x0fu, minimum = 0x800;
    } else if ((lead & 0xf8) == 0xf0) {
        length = 4, value = lead & 0x07u, minimum = 0x10000;
    }
    bool valid = length > 0 && at + length <= text.size();
    for (std::size_t i = 1; valid && i < length; ++i) {
        const unsigned char next = byte(at + i);
        valid = (next & 0xc0) == 0x80;
        value = (value << 6) | (next & 0x3fu);
    }
    valid = valid && value >= minimum && value <= 0x10ffff && !(value >= 0xd800 && value <= 0xdfff);
    if (!valid) return Utf8Char{.code = lead, .length = 1, .valid = false};
    return Utf8Char{.code = value, .length = length, .valid = true};
}

bool is_unsafe_for_display(std::uint32_t code) {
    return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code == 0x061c || code == 0x200e ||
           code == 0x200f || (code >= 0x202a && code <= 0x202e) ||
           (code >= 0x2066 && code <= 0x2069);
}

}  // namespace gpukill

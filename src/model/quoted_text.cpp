#include "model/quoted_text.hpp"

#include <fmt/format.h>

namespace gpukill {

std::string quote_escaped(std::string_view text) {
    std::string out = "\"";
    for (unsigned char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20 || c == 0x7f) {
            out += fmt::format("\\x{:02x}", c);
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + '"';
}

}  // namespace gpukill

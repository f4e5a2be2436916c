#include "model/byte_size.hpp"

#include <cctype>
#include <string>

namespace gpukill {

namespace {

__extension__ using Wide = unsigned __int128;

constexpr Wide kMaxBytes = UINT64_MAX;

// The multiplier of a unit suffix, or 0 when the suffix is not one.
std::uint64_t unit_multiplier(std::string_view unit) {
    if (unit.empty()) return 1;
    std::uint64_t multiplier = 0;
    switch (std::toupper(static_cast<unsigned char>(unit.front()))) {
        case 'B':
            return unit.size() == 1 ? 1 : 0;
        case 'K':
            multiplier = 1ULL << 10;
            break;
        case 'M':
            multiplier = 1ULL << 20;
            break;
        case 'G':
            multiplier = 1ULL << 30;
            break;
        case 'T':
            multiplier = 1ULL << 40;
            break;
        default:
            return 0;
    }
    const std::string_view rest = unit.substr(1);
    if (rest.empty() || rest == "B" || rest == "iB" || rest == "ib" || rest == "b") {
        return multiplier;
    }
    return 0;
}

}  // namespace

Result<std::uint64_t> parse_byte_size(std::string_view text) {
    auto bad = [&](std::string_view why) {
        return fail("bad size '" + std::string(text) + "': " + std::string(why));
    };
    if (text.empty()) return bad("empty");
    if (text.front() == '-') return bad("must not be negative");

    std::size_t pos = 0;
    Wide whole = 0;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
        whole = whole * 10 + static_cast<unsigned>(text[pos] - '0');
        if (whole > kMaxBytes) return bad("too large");
        ++pos;
    }
    if (pos == 0) return bad("expected a number such as 512M, 4G or 1024");

    // Fraction digits are kept exactly (numerator / 10^digits) so 1.5G is 1610612736 bytes.
    Wide fraction = 0;
    Wide scale = 1;
    bool has_fraction = false;
    if (pos < text.size() && text[pos] == '.') {
        has_fraction = true;
        ++pos;
        const std::size_t first = pos;
        while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
            if (scale < 1'000'000'000'000ULL) {
                fraction = fraction * 10 + static_cast<unsigned>(text[pos] - '0');
                scale *= 10;
            }
            ++pos;
        }
        if (pos == first) return bad("expected digits after '.'");
    }

    const std::uint64_t multiplier = unit_multiplier(text.substr(pos));
    if (multiplier == 0) return bad("unknown unit (use K, M, G or T)");
    if (has_fraction && multiplier == 1) return bad("a fraction of a byte");

    const Wide bytes = whole * multiplier + fraction * multiplier / scale;
    if (bytes > kMaxBytes) return bad("too large");
    return static_cast<std::uint64_t>(bytes);
}

}  // namespace gpukill

#include "state/size.hpp"

#include "model/byte_size.hpp"

#include <array>
#include <cstdio>

namespace gpusim {

Result<std::uint64_t> parse_size(std::string_view text) {
    auto bytes = gpukill::parse_byte_size(text);
    if (!bytes) return fail(kExitUsage, bytes.error().what);
    return *bytes;
}

std::string format_size(std::uint64_t bytes) {
    static constexpr std::array<const char*, 5> kUnits{"B", "KiB", "MiB", "GiB", "TiB"};
    if (bytes < 1024) return std::to_string(bytes) + " B";
    double value = static_cast<double>(bytes);
    std::size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < kUnits.size()) {
        value /= 1024.0;
        ++unit;
    }
    std::array<char, 32> buffer{};
    std::snprintf(buffer.data(), buffer.size(), "%.2f %s", value, kUnits[unit]);
    return buffer.data();
}

}  // namespace gpusim

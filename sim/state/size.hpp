#pragma once
// Memory sizes as people write them: 1024, 512M, 1.5G, 80GiB (K/M/G/T are binary multiples).

#include <cstdint>
#include <string>
#include <string_view>

#include "state/error.hpp"

namespace gpusim {

// Parses a size in bytes. Errors carry kExitUsage and say what is wrong with the text.
Result<std::uint64_t> parse_size(std::string_view text);

// "1.50 GiB", "512.00 MiB", "1024 B": for people, never parsed back.
std::string format_size(std::uint64_t bytes);

}  // namespace gpusim

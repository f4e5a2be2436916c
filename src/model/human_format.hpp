// Human-readable quantities for tables: binary units as nvidia-smi and nvitop use.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpukill {

// 0 -> "0 B", 536870912 -> "512 MiB", 85899345920 -> "80.0 GiB"
std::string format_bytes(std::uint64_t bytes);
std::string format_bytes(const std::optional<std::uint64_t>& bytes);  // "?" when unknown

// Text from processes (names, command lines) made safe for a terminal: control
// bytes, including newlines and ESC, become '?', as ps shows them. A process could
// otherwise forge table rows or send escape sequences to whoever runs gpukill.
std::string printable(std::string_view text);

// "2026-11-29 23:40:11" in local time
std::string format_local_time(std::int64_t unix_ms);

}  // namespace gpukill

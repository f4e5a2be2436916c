#include "model/start_time.hpp"

#include <limits>

namespace gpukill {

std::int64_t start_time_unix_ms(std::uint64_t ticks, std::int64_t boot_unix, long hz) {
    const auto per_second = static_cast<std::uint64_t>(hz > 0 ? hz : kLinuxUserHz);
    // Split into whole seconds and a remainder so ticks * 1000 never overflows.
    const std::uint64_t seconds = ticks / per_second;
    const std::uint64_t millis = (ticks % per_second) * 1000 / per_second;
    const auto max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    const std::uint64_t since_boot_ms =
        seconds > (max - millis) / 1000 ? max : seconds * 1000 + millis;
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    if (boot_unix > kMax / 1000 || boot_unix < -(kMax / 1000)) return kMax;
    const std::int64_t boot_ms = boot_unix * 1000;
    const auto since = static_cast<std::int64_t>(since_boot_ms);
    // Saturate rather than wrap: a nonsense tick count must not turn into a past date.
    if (since > kMax - boot_ms) return kMax;
    return boot_ms + since;
}

}  // namespace gpukill

// A process's start time (field 22 of /proc/PID/stat, clock ticks since boot) as
// wall time. Pure arithmetic: the boot time and tick rate are read by host/boot_time.
#pragma once

#include <cstdint>

namespace gpukill {

// Linux's USER_HZ: the tick rate /proc reports start times in on every architecture.
inline constexpr long kLinuxUserHz = 100;

// Unix milliseconds at which a process started. Exact for any 64-bit tick count (no
// overflow in ticks * 1000); saturates rather than wraps. A non-positive hz is
// treated as 100, the Linux USER_HZ.
std::int64_t start_time_unix_ms(std::uint64_t ticks, std::int64_t boot_unix, long hz);

}  // namespace gpukill

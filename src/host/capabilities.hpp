// Whether gpukill may signal other users' processes: kill(2) allows it to root and to a
// process holding CAP_KILL in its effective set (a systemd service or a container given
// that one capability). Parsing is pure; the reader is one file read.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "model/result.hpp"

namespace gpukill {

// The effective capability set from /proc/PID/status ("CapEff:\t0000003fffffffff"), a
// 64-bit hexadecimal mask. An error when the line is missing or not hexadecimal.
Result<std::uint64_t> parse_effective_capabilities(std::string_view status_text);

// Any capability mask of /proc/PID/status by its key: "CapEff", "CapPrm", "CapBnd".
Result<std::uint64_t> parse_capability_mask(std::string_view status_text, std::string_view key);

// "CAP_SYS_PTRACE" for bit 19 (include/uapi/linux/capability.h); "capability 45" for a
// bit this table does not name.
std::string capability_name(unsigned bit);

inline constexpr unsigned kCapSysPtrace = 19;

// CAP_KILL (bit 5, include/uapi/linux/capability.h) is in `mask`.
bool has_cap_kill(std::uint64_t mask);

// True when this process may signal any user's process: effective uid 0, or CAP_KILL in
// the CapEff of `own_status_path` (normally "/proc/self/status"). An unreadable or
// malformed status counts as no capability: the kernel still decides at kill() time.
bool can_signal_any_user(const std::string& own_status_path);

}  // namespace gpukill

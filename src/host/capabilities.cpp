#include "host/capabilities.hpp"

#include <unistd.h>

#include <charconv>
#include <iterator>
#include <optional>

#include "host/proc_reader.hpp"
#include "model/parse_util.hpp"

namespace gpukill {
namespace {

constexpr unsigned kCapKill = 5;  // CAP_KILL, include/uapi/linux/capability.h

std::optional<std::uint64_t> parse_hex_mask(std::string_view s) {
    // The kernel prints 16 hex digits; anything longer cannot be a 64-bit mask.
    if (s.empty() || s.size() > 16 || !text::all_of_hex(s)) return std::nullopt;
    std::uint64_t value = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value, 16);
    if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
    return value;
}

}  // namespace

Result<std::uint64_t> parse_capability_mask(std::string_view status_text, std::string_view key) {
    std::optional<std::uint64_t> mask;
    bool seen = false;
    const std::string prefix = std::string(key) + ":";
    text::for_each_line(status_text, [&](std::string_view line) {
        if (seen || !line.starts_with(prefix)) return;
        seen = true;
        mask = parse_hex_mask(text::trim(line.substr(prefix.size())));
    });
    if (!seen) return fail("no \"" + prefix + "\" line in status");
    if (!mask) return fail("\"" + prefix + "\" is not a 64-bit hexadecimal mask");
    return *mask;
}

Result<std::uint64_t> parse_effective_capabilities(std::string_view status_text) {
    return parse_capability_mask(status_text, "CapEff");
}

std::string capability_name(unsigned bit) {
    static constexpr const char* kNames[] = {
        "CAP_CHOWN",
        "CAP_DAC_OVERRIDE",
        "CAP_DAC_READ_SEARCH",
        "CAP_FOWNER",
        "CAP_FSETID",
        "CAP_KILL",
        "CAP_SETGID",
        "CAP_SETUID",
        "CAP_SETPCAP",
        "CAP_LINUX_IMMUTABLE",
        "CAP_NET_BIND_SERVICE",
        "CAP_NET_BROADCAST",
        "CAP_NET_ADMIN",
        "CAP_NET_RAW",
        "CAP_IPC_LOCK",
        "CAP_IPC_OWNER",
        "CAP_SYS_MODULE",
        "CAP_SYS_RAWIO",
        "CAP_SYS_CHROOT",
        "CAP_SYS_PTRACE",
        "CAP_SYS_PACCT",
        "CAP_SYS_ADMIN",
        "CAP_SYS_BOOT",
        "CAP_SYS_NICE",
        "CAP_SYS_RESOURCE",
        "CAP_SYS_TIME",
        "CAP_SYS_TTY_CONFIG",
        "CAP_MKNOD",
        "CAP_LEASE",
        "CAP_AUDIT_WRITE",
        "CAP_AUDIT_CONTROL",
        "CAP_SETFCAP",
        "CAP_MAC_OVERRIDE",
        "CAP_MAC_ADMIN",
        "CAP_SYSLOG",
        "CAP_WAKE_ALARM",
        "CAP_BLOCK_SUSPEND",
        "CAP_AUDIT_READ",
        "CAP_PERFMON",
        "CAP_BPF",
        "CAP_CHECKPOINT_RESTORE",
    };
    if (bit < std::size(kNames)) return kNames[bit];
    return "capability " + std::to_string(bit);
}

bool has_cap_kill(std::uint64_t mask) {
    return (mask >> kCapKill) & 1U;
}

bool can_signal_any_user(const std::string& own_status_path) {
    if (::geteuid() == 0) return true;
    auto status = read_text_file(own_status_path);
    if (!status) return false;
    auto mask = parse_effective_capabilities(*status);
    return mask && has_cap_kill(*mask);
}

}  // namespace gpukill

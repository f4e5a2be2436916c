#include "host/capabilities.hpp"

#include <unistd.h>

#include <charconv>
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

Result<std::uint64_t> parse_effective_capabilities(std::string_view status_text) {
    std::optional<std::uint64_t> mask;
    bool seen = false;
    text::for_each_line(status_text, [&](std::string_view line) {
        constexpr std::string_view key = "CapEff:";
        if (seen || !line.starts_with(key)) return;
        seen = true;
        mask = parse_hex_mask(text::trim(line.substr(key.size())));
    });
    if (!seen) return fail("no \"CapEff:\" line in status");
    if (!mask) return fail("\"CapEff:\" is not a 64-bit hexadecimal mask");
    return *mask;
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

#include "host/boot_time.hpp"

#include <unistd.h>

#include <limits>
#include <string>

#include "host/parse_util.hpp"
#include "host/proc_reader.hpp"

namespace gpukill {
namespace {
constexpr long kLinuxUserHz = 100;
}  // namespace

Result<std::int64_t> parse_boot_time(std::string_view proc_stat_text) {
    std::optional<std::int64_t> btime;
    text::for_each_line(proc_stat_text, [&](std::string_view line) {
        constexpr std::string_view key = "btime ";
        if (!btime && line.starts_with(key)) {
            btime = text::parse_int<std::int64_t>(text::trim(line.substr(key.size())));
        }
    });
    if (!btime || *btime < 0) return fail("no valid \"btime\" line in /proc/stat");
    return *btime;
}

Result<std::int64_t> read_boot_time_unix(const HostRoots& roots) {
    const std::string path = roots.procfs + "/stat";
    auto text = read_text_file(path);
    if (!text) return std::unexpected(text.error());
    auto btime = parse_boot_time(*text);
    if (!btime) return fail(path + ": " + btime.error().what);
    return btime;
}

long clock_ticks_per_second() {
    const long hz = ::sysconf(_SC_CLK_TCK);
    return hz > 0 ? hz : kLinuxUserHz;
}

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

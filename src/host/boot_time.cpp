#include "host/boot_time.hpp"

#include <unistd.h>

#include <limits>
#include <string>

#include "host/proc_reader.hpp"
#include "model/parse_util.hpp"
#include "model/start_time.hpp"

namespace gpukill {

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

}  // namespace gpukill

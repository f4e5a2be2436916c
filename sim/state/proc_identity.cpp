#include "state/proc_identity.hpp"

#include <charconv>
#include <string>

#include "state/files.hpp"

namespace gpusim {

std::optional<ProcStat> parse_proc_stat(std::string_view text) {
    // "PID (COMM) STATE PPID ..."; COMM is whatever the process named itself, so the fields
    // start after the last ')'.
    const auto close = text.rfind(')');
    if (close == std::string_view::npos) return std::nullopt;
    std::string_view rest = text.substr(close + 1);

    // Field 3 is the state; field 22 the start time, in clock ticks since boot.
    ProcStat stat;
    int field = 2;
    while (!rest.empty()) {
        const auto start = rest.find_first_not_of(' ');
        if (start == std::string_view::npos) break;
        rest.remove_prefix(start);
        const auto end = rest.find(' ');
        const std::string_view token = rest.substr(0, end);
        ++field;
        if (field == 3) {
            if (token.size() != 1) return std::nullopt;
            stat.state = token.front();
        } else if (field == 22) {
            const auto [ptr, error] =
                std::from_chars(token.data(), token.data() + token.size(), stat.start_time_ticks);
            if (error != std::errc{} || ptr != token.data() + token.size()) return std::nullopt;
            return stat;
        }
        if (end == std::string_view::npos) break;
        rest.remove_prefix(end);
    }
    return std::nullopt;
}

std::optional<ProcStat> read_proc_stat(int pid) {
    if (pid <= 0) return std::nullopt;
    auto text = read_file("/proc/" + std::to_string(pid) + "/stat");
    if (!text) return std::nullopt;
    return parse_proc_stat(*text);
}

bool process_running(int pid, std::uint64_t start_time_ticks) {
    const auto stat = read_proc_stat(pid);
    if (!stat) return false;
    // A zombie has closed its files: the driver no longer counts it.
    if (stat->state == 'Z' || stat->state == 'X' || stat->state == 'x') return false;
    return stat->start_time_ticks == start_time_ticks;
}

}  // namespace gpusim

#include "host/process_usage.hpp"

#include <array>

#include "host/proc_reader.hpp"
#include "model/parse_util.hpp"

namespace gpukill {
namespace {

constexpr std::size_t kUsageFieldFirst = 3;  // state, the first field after comm
constexpr std::size_t kUsageFieldUtime = 14;
constexpr std::size_t kUsageFieldStime = 15;
constexpr std::size_t kUsageFieldStart = 22;
constexpr std::size_t kUsageFieldRss = 24;
constexpr std::size_t kUsageFieldsNeeded = kUsageFieldRss - kUsageFieldFirst + 1;

std::string usage_pid_file(const HostRoots& roots, pid_t pid, const char* name) {
    return roots.procfs + "/" + std::to_string(pid) + "/" + name;
}

}  // namespace

Result<ProcStatUsage> parse_proc_stat_usage(std::string_view text) {
    const auto close = text.rfind(')');
    if (close == std::string_view::npos) return fail("/proc/PID/stat: no ')' after comm");
    std::string_view rest = text.substr(close + 1);
    while (!rest.empty() && (rest.back() == '\n' || rest.back() == '\0')) rest.remove_suffix(1);
    if (rest.empty() || rest.front() != ' ') return fail("/proc/PID/stat: no fields after comm");
    rest.remove_prefix(1);
    std::array<std::string_view, kUsageFieldsNeeded> fields{};
    std::size_t count = 0;
    while (count < kUsageFieldsNeeded) {
        const auto space = rest.find(' ');
        fields[count++] = rest.substr(0, space);
        if (space == std::string_view::npos) break;
        rest.remove_prefix(space + 1);
    }
    if (count < kUsageFieldsNeeded) return fail("/proc/PID/stat: fewer than 24 fields");
    auto field = [&](std::size_t number) {
        return text::parse_int<std::uint64_t>(fields[number - kUsageFieldFirst]);
    };
    const auto utime = field(kUsageFieldUtime);
    const auto stime = field(kUsageFieldStime);
    const auto start = field(kUsageFieldStart);
    const auto rss = field(kUsageFieldRss);
    if (!utime || !stime || !start || !rss) {
        return fail("/proc/PID/stat: utime, stime, starttime or rss is not a number");
    }
    return ProcStatUsage{
        .start_time_ticks = *start, .cpu_ticks = *utime + *stime, .rss_pages = *rss};
}

std::vector<std::string> parse_proc_environ(std::string_view text) {
    std::vector<std::string> entries;
    while (!text.empty()) {
        const auto nul = text.find('\0');
        std::string_view entry = text.substr(0, nul);
        if (!entry.empty()) entries.emplace_back(entry);
        if (nul == std::string_view::npos) break;
        text.remove_prefix(nul + 1);
    }
    return entries;
}

Result<ProcStatUsage> read_process_usage(const HostRoots& roots, pid_t pid) {
    auto text = read_text_file(usage_pid_file(roots, pid, "stat"));
    if (!text) return std::unexpected(text.error());
    return parse_proc_stat_usage(*text);
}

Result<std::vector<std::string>> read_process_environment(const HostRoots& roots, pid_t pid) {
    auto text = read_text_file(usage_pid_file(roots, pid, "environ"));
    if (!text) return std::unexpected(text.error());
    return parse_proc_environ(*text);
}

Result<std::string> read_process_cgroup(const HostRoots& roots, pid_t pid) {
    return read_text_file(usage_pid_file(roots, pid, "cgroup"));
}

}  // namespace gpukill

// Parsers for /proc/PID/stat, status, cmdline and the exe link. The cgroup and device-path
// parsers declared in proc_parse.hpp live in cgroup_parse.cpp and device_path.cpp.
#include "host/proc_parse.hpp"

#include <array>
#include <string>

#include "model/parse_util.hpp"

namespace gpukill {
namespace {

// Fields after comm, counted from field 3 (state). starttime is field 22.
constexpr std::size_t kFieldState = 3;
constexpr std::size_t kFieldPpid = 4;
constexpr std::size_t kFieldPgrp = 5;
constexpr std::size_t kFieldSession = 6;
constexpr std::size_t kFieldFlags = 9;
constexpr std::size_t kFieldStartTime = 22;
constexpr std::size_t kFieldsNeeded = kFieldStartTime - kFieldState + 1;

Result<ProcStat> stat_error(std::string_view why) {
    return fail("malformed /proc/PID/stat: " + std::string(why));
}

// A non-negative pid_t ("0" is valid: the parent of init and kthreadd).
std::optional<pid_t> parse_pid(std::string_view s) {
    auto v = text::parse_int<pid_t>(s);
    if (!v || *v < 0) return std::nullopt;
    return v;
}

// status escapes the task name (seq_escape with ESCAPE_SPACE|ESCAPE_SPECIAL), so a name
// holding "\n" reads "\\n". Undo the escapes the kernel produces; keep anything unknown.
std::string unescape_status_name(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\\' || i + 1 == s.size()) {
            out.push_back(s[i]);
            continue;
        }
        const char next = s[i + 1];
        char decoded = 0;
        switch (next) {
            case 'n':
                decoded = '\n';
                break;
            case 't':
                decoded = '\t';
                break;
            case 'r':
                decoded = '\r';
                break;
            case 'v':
                decoded = '\v';
                break;
            case 'f':
                decoded = '\f';
                break;
            case 'e':
                decoded = '\x1b';
                break;
            case '\\':
                decoded = '\\';
                break;
            case '"':
                decoded = '"';
                break;
            default:
                break;
        }
        if (decoded != 0) {
            out.push_back(decoded);
            ++i;
        } else {
            out.push_back('\\');
        }
    }
    return out;
}

// Whitespace-separated tokens of a status value ("1000\t1000\t1000\t1000").
template <class Fn>
void for_each_token(std::string_view s, Fn&& fn) {
    constexpr std::string_view space = " \t";
    while (true) {
        const auto start = s.find_first_not_of(space);
        if (start == std::string_view::npos) return;
        s.remove_prefix(start);
        const auto end = s.find_first_of(space);
        fn(s.substr(0, end));
        if (end == std::string_view::npos) return;
        s.remove_prefix(end);
    }
}

}  // namespace

Result<ProcStat> parse_proc_stat(std::string_view text) {
    // "PID (COMM) STATE PPID ...": comm is whatever lies between the first '(' and the
    // LAST ')', since a process may name itself "a) b" and no later field holds a ')'.
    const auto open = text.find(" (");
    if (open == std::string_view::npos) return stat_error("no '(' after the pid");
    const auto close = text.rfind(')');
    if (close == std::string_view::npos || close <= open + 1)
        return stat_error("no ')' after comm");

    ProcStat stat;
    const auto pid = parse_pid(text.substr(0, open));
    if (!pid) return stat_error("pid is not a number");
    stat.pid = *pid;
    stat.comm = std::string(text.substr(open + 2, close - open - 2));

    std::string_view rest = text.substr(close + 1);
    while (!rest.empty() && (rest.back() == '\n' || rest.back() == '\0')) rest.remove_suffix(1);
    if (rest.empty() || rest.front() != ' ') return stat_error("no fields after comm");
    rest.remove_prefix(1);

    // Split the first fields on single spaces, as the kernel writes them.
    std::array<std::string_view, kFieldsNeeded> fields{};
    std::size_t count = 0;
    while (count < kFieldsNeeded) {
        const auto space = rest.find(' ');
        fields[count++] = rest.substr(0, space);
        if (space == std::string_view::npos) break;
        rest.remove_prefix(space + 1);
    }
    if (count < kFieldsNeeded) return stat_error("fewer than 22 fields");
    auto field = [&](std::size_t number) { return fields[number - kFieldState]; };

    if (field(kFieldState).size() != 1) return stat_error("state is not one character");
    stat.state = field(kFieldState).front();

    const auto ppid = parse_pid(field(kFieldPpid));
    const auto pgid = parse_pid(field(kFieldPgrp));
    const auto sid = parse_pid(field(kFieldSession));
    const auto flags = text::parse_int<unsigned>(field(kFieldFlags));
    const auto start = text::parse_int<std::uint64_t>(field(kFieldStartTime));
    if (!ppid || !pgid || !sid) return stat_error("ppid, pgrp or session is not a pid");
    if (!flags) return stat_error("flags is not a number");
    if (!start) return stat_error("starttime is not a number");
    stat.ppid = *ppid;
    stat.pgid = *pgid;
    stat.sid = *sid;
    stat.flags = *flags;
    stat.start_time_ticks = *start;
    return stat;
}

ProcStatus parse_proc_status(std::string_view text) {
    ProcStatus status;
    text::for_each_line(text, [&](std::string_view line) {
        const auto colon = line.find(':');
        if (colon == std::string_view::npos) return;
        const auto key = line.substr(0, colon);
        const auto value = line.substr(colon + 1);

        if (key == "Name") {
            // The name may begin or end with spaces; only the tab after ':' is format.
            auto name = value;
            if (!name.empty() && name.front() == '\t') name.remove_prefix(1);
            status.name = unescape_status_name(name);
        } else if (key == "Uid") {
            std::size_t index = 0;
            for_each_token(value, [&](std::string_view token) {
                const auto uid = text::parse_int<uid_t>(token);
                if (index == 0 && uid) status.real_uid = uid;
                if (index == 1 && uid) status.effective_uid = uid;
                ++index;
            });
        } else if (key == "PPid") {
            status.ppid = parse_pid(text::trim(value));
        } else if (key == "Tgid") {
            status.tgid = parse_pid(text::trim(value));
        } else if (key == "NSpid") {
            std::vector<pid_t> pids;
            bool ok = true;
            for_each_token(value, [&](std::string_view token) {
                const auto pid = parse_pid(token);
                if (pid) {
                    pids.push_back(*pid);
                } else {
                    ok = false;
                }
            });
            // A half-understood namespace chain is worse than none: callers map PIDs with it.
            if (ok) status.nspid = std::move(pids);
        }
    });
    return status;
}

std::vector<std::string> parse_proc_cmdline(std::string_view text) {
    std::vector<std::string> args;
    if (text.empty()) return args;
    // One terminating NUL ends the last argument; further NULs are empty arguments.
    if (text.back() == '\0') text.remove_suffix(1);
    while (true) {
        const auto nul = text.find('\0');
        args.emplace_back(text.substr(0, nul));
        if (nul == std::string_view::npos) break;
        text.remove_prefix(nul + 1);
    }
    return args;
}

ExeLink parse_exe_link(std::string_view link_target) {
    constexpr std::string_view deleted = " (deleted)";
    if (link_target.ends_with(deleted)) {
        link_target.remove_suffix(deleted.size());
        return {std::string(link_target), true};
    }
    return {std::string(link_target), false};
}

}  // namespace gpukill

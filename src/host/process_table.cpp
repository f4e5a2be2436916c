#include "host/process_table.hpp"

#include <dirent.h>

#include <algorithm>
#include <charconv>
#include <deque>
#include <filesystem>
#include <set>
#include <string_view>

#include "host/proc_reader.hpp"

namespace gpukill {
namespace {

// The PIDs in a /proc/PID/task/TID/children file: "4243 4244 ".
void add_children(std::string_view text, std::deque<pid_t>& queue) {
    while (!text.empty()) {
        const std::size_t space = text.find_first_not_of("0123456789");
        const std::string_view word = text.substr(0, space);
        pid_t child = 0;
        if (!word.empty() &&
            std::from_chars(word.data(), word.data() + word.size(), child).ec == std::errc() &&
            child > 0) {
            queue.push_back(child);
        }
        if (space == std::string_view::npos) break;
        text.remove_prefix(space + 1);
    }
}

// Every thread's children: a worker forked from a thread other than the main one is
// listed under that thread only.
void queue_children(const HostRoots& roots, pid_t pid, std::deque<pid_t>& queue) {
    const std::string tasks = roots.procfs + "/" + std::to_string(pid) + "/task";
    std::error_code failed;
    for (const auto& task : std::filesystem::directory_iterator(tasks, failed)) {
        if (auto text = read_text_file(task.path().string() + "/children")) {
            add_children(*text, queue);
        }
    }
}

}  // namespace

Result<std::vector<ProcessInfo>> read_process_table(const HostRoots& roots) {
    auto pids = list_pids(roots);
    if (!pids) return std::unexpected(pids.error());
    std::vector<ProcessInfo> table;
    table.reserve(pids->size());
    for (pid_t pid : *pids) {
        // read_process fails only when stat is unreadable: the process is gone.
        if (auto info = read_process(roots, pid)) table.push_back(std::move(*info));
    }
    return table;  // list_pids is sorted, so the table is too
}

std::vector<ProcessInfo> read_process_family(const HostRoots& roots,
                                             const std::vector<pid_t>& pids) {
    std::vector<ProcessInfo> table;
    std::set<pid_t> seen;
    std::deque<pid_t> queue(pids.begin(), pids.end());
    while (!queue.empty()) {
        const pid_t pid = queue.front();
        queue.pop_front();
        if (pid <= 0 || !seen.insert(pid).second) continue;
        auto info = read_process(roots, pid);
        if (!info) continue;  // gone
        table.push_back(std::move(*info));
        queue_children(roots, pid, queue);
    }
    std::sort(table.begin(), table.end(),
              [](const ProcessInfo& a, const ProcessInfo& b) { return a.pid < b.pid; });
    return table;
}

}  // namespace gpukill

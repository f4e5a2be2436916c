#include "detect/executable_signals.hpp"

#include <fmt/format.h>

#include "model/quoted_text.hpp"

namespace gpukill::detect {
namespace {

// Whether `path` is inside `dir` ("/tmp" holds "/tmp/x" but not "/tmpfoo/x").
bool inside(std::string_view path, std::string_view dir) {
    while (dir.size() > 1 && dir.back() == '/') dir.remove_suffix(1);
    if (dir == "/") return true;
    return path.size() > dir.size() + 1 && path.starts_with(dir) && path[dir.size()] == '/';
}

}  // namespace

std::vector<Evidence> judge_executable(const ProcessInfo& info, const RogueConfig& config) {
    std::vector<Evidence> evidence;
    if (info.kernel_thread || !info.exe || info.exe->empty()) return evidence;
    const std::string& exe = *info.exe;
    if (info.exe_deleted) {
        if (auto found =
                make_evidence(config, Signal::exe_deleted,
                              fmt::format("executable {} was deleted after the process started",
                                          quote_escaped(exe)))) {
            evidence.push_back(std::move(*found));
        }
    }
    for (const std::string& dir : config.temp_dirs) {
        if (!inside(exe, dir)) continue;
        if (auto found = make_evidence(config, Signal::exe_in_temp_dir,
                                       fmt::format("runs from a scratch directory: {} is in {}",
                                                   quote_escaped(exe), dir))) {
            evidence.push_back(std::move(*found));
        }
        break;
    }
    return evidence;
}

}  // namespace gpukill::detect

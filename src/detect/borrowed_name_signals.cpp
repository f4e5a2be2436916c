#include "detect/borrowed_name_signals.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "detect/names.hpp"
#include "model/quoted_text.hpp"

namespace gpukill::detect {
namespace {

// argv[0] as a kernel thread's name is written: the first word, brackets removed, the
// '/' kept ("[kworker/0:1]" is "kworker/0:1", never its last component "0:1").
std::string_view kernel_style_argv0(std::string_view argv0) {
    std::string_view word = argv0.substr(0, argv0.find(' '));
    if (word.size() >= 2 && word.front() == '[' && word.back() == ']') {
        word = word.substr(1, word.size() - 2);
    }
    return word;
}

std::optional<Evidence> kernel_thread_name(const ProcessInfo& info, const RogueConfig& config) {
    std::vector<std::string> claims;
    if (first_match(info.comm, config.kernel_thread_names)) {
        claims.push_back(fmt::format("process name {}", quote_escaped(info.comm)));
    }
    if (!info.cmdline.empty()) {
        const std::string_view argv0 = kernel_style_argv0(info.cmdline.front());
        if (argv0 != info.comm && first_match(argv0, config.kernel_thread_names)) {
            claims.push_back(fmt::format("argv[0] {}", quote_escaped(info.cmdline.front())));
        }
    }
    if (claims.empty()) return std::nullopt;
    const std::string what = info.exe ? fmt::format("it runs {}", quote_escaped(*info.exe))
                                      : std::string("the kernel says it is a user process");
    return make_evidence(config, Signal::kernel_thread_name,
                         fmt::format("holds a GPU under a kernel thread's name: {}; kernel "
                                     "threads have no executable and no open files, and {}",
                                     join_examples(claims), what));
}

// The daemon name the process claims, if any: its executable's, comm or argv[0].
std::optional<std::string> claimed_daemon(const ProcessInfo& info, const RogueConfig& config) {
    std::vector<std::string> names;
    if (info.exe) names.emplace_back(base_name(*info.exe));
    names.push_back(info.comm);
    if (!info.cmdline.empty()) {
        if (auto argv0 = argv0_name(info.cmdline.front())) names.push_back(*argv0);
    }
    for (const std::string& name : names) {
        if (!name.empty() && first_match(name, config.system_daemon_names)) return name;
    }
    return std::nullopt;
}

std::optional<Evidence> system_daemon_name(const ProcessInfo& info,
                                           const std::optional<ExecutableFile>& file,
                                           const RogueConfig& config) {
    if (!info.exe || info.exe->empty()) return std::nullopt;
    const auto daemon = claimed_daemon(info, config);
    if (!daemon) return std::nullopt;
    const std::string& exe = *info.exe;
    std::vector<std::string> reasons;
    const bool in_system_dir =
        std::any_of(config.system_program_dirs.begin(), config.system_program_dirs.end(),
                    [&](const std::string& dir) { return path_inside(exe, dir); });
    if (!in_system_dir) reasons.emplace_back("not in a system program directory");
    if (file && file->owner_uid != 0) {
        reasons.push_back(fmt::format("owned by uid {}, not root", file->owner_uid));
    }
    if (file && file->writable_by_others) reasons.emplace_back("writable by group or others");
    if (reasons.empty()) return std::nullopt;
    return make_evidence(
        config, Signal::system_daemon_name,
        fmt::format("holds a GPU as the system daemon {}, which never uses one, but runs {}: {}",
                    quote_escaped(*daemon), quote_escaped(exe), join_examples(reasons)));
}

}  // namespace

std::vector<Evidence> judge_borrowed_names(const ProcessInfo& info,
                                           const std::optional<ExecutableFile>& file,
                                           const RogueConfig& config) {
    std::vector<Evidence> evidence;
    if (info.kernel_thread) return evidence;
    if (auto found = kernel_thread_name(info, config)) evidence.push_back(std::move(*found));
    if (auto found = system_daemon_name(info, file, config)) evidence.push_back(std::move(*found));
    return evidence;
}

}  // namespace gpukill::detect

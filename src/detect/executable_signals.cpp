#include "detect/executable_signals.hpp"

#include <fmt/format.h>

#include "detect/names.hpp"
#include "model/quoted_text.hpp"

namespace gpukill::detect {
namespace {

std::string bytes_read_text(const ExecutableScan& scan) {
    const double mib = static_cast<double>(scan.bytes_read) / (1024.0 * 1024.0);
    return fmt::format("{} {:.1f} MiB of the executable", scan.cut ? "the first" : "all", mib);
}

}  // namespace

ContentVerdict judge_executable_content(const ExecutableScan& scan, const RogueConfig& config) {
    ContentVerdict verdict;
    std::vector<std::string> quoted;
    for (const std::string& signature : scan.signatures) quoted.push_back(quote_escaped(signature));
    if (scan.signatures.empty()) {
        verdict.note = fmt::format("no miner strings in {}", bytes_read_text(scan));
        return verdict;
    }
    const std::size_t needed = config.executable_scan.min_signatures;
    if (scan.signatures.size() < needed) {
        verdict.note = fmt::format("miner strings in {}: {} (fewer than the {} needed)",
                                   bytes_read_text(scan), join_examples(quoted), needed);
        return verdict;
    }
    verdict.evidence =
        make_evidence(config, Signal::miner_signature,
                      fmt::format("the executable carries strings of mining programs: {} (in {})",
                                  join_examples(quoted, 6), bytes_read_text(scan)));
    verdict.note = "executable content: mining strings";
    return verdict;
}

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
        if (!path_inside(exe, dir)) continue;
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

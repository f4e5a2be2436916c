#include "detect/name_signals.hpp"

#include <fmt/format.h>

#include <optional>
#include <string>

#include "detect/names.hpp"
#include "model/quoted_text.hpp"

namespace gpukill::detect {
namespace {

struct Names {
    std::optional<std::string> exe_base;
    std::string comm;
    std::optional<std::string> argv0;       // argv[0] as given
    std::optional<std::string> argv0_name;  // the program it claims
};

Names names_of(const ProcessInfo& info) {
    Names names;
    if (info.exe && !info.exe->empty()) names.exe_base = std::string(base_name(*info.exe));
    names.comm = info.comm;
    if (!info.cmdline.empty()) {
        names.argv0 = info.cmdline.front();
        names.argv0_name = argv0_name(info.cmdline.front());
    }
    return names;
}

std::optional<Evidence> miner_name(const Names& names, const RogueConfig& config) {
    std::vector<std::string> seen;
    auto check = [&](const char* what, const std::optional<std::string>& name) {
        if (!name || name->empty()) return;
        if (first_match(*name, config.miner_names)) {
            seen.push_back(fmt::format("{} {}", what, quote_escaped(*name)));
        }
    };
    check("executable", names.exe_base);
    check("process name", names.comm);
    if (names.argv0_name != names.comm && names.argv0_name != names.exe_base) {
        check("argv[0]", names.argv0_name);
    }
    if (seen.empty()) return std::nullopt;
    return make_evidence(config, Signal::miner_name,
                         fmt::format("known miner program: {}", join_examples(seen)));
}

std::optional<Evidence> masquerade(const ProcessInfo& info, const Names& names,
                                   const RogueConfig& config) {
    std::vector<std::string> seen;
    if (names.exe_base) {
        auto check = [&](const char* what, const std::optional<std::string>& claimed) {
            if (!claimed || !first_match(*claimed, config.masquerade_names)) return;
            if (same_program(*claimed, *names.exe_base)) return;
            seen.push_back(fmt::format("{} {} but runs {}", what, quote_escaped(*claimed),
                                       quote_escaped(*info.exe)));
        };
        check("calls itself", names.comm);
        if (names.argv0_name != names.comm) check("argv[0] claims", names.argv0_name);
    }
    if (names.argv0 && bracketed(*names.argv0)) {
        seen.push_back(
            fmt::format("argv[0] {} is written like a kernel thread's name, but this "
                        "is a user process",
                        quote_escaped(*names.argv0)));
    }
    if (seen.empty()) return std::nullopt;
    return make_evidence(config, Signal::masquerade,
                         fmt::format("poses as another program: {}", join_examples(seen)));
}

std::optional<Evidence> name_mismatch(const ProcessInfo& info, const Names& names,
                                      const RogueConfig& config) {
    if (!names.exe_base || names.comm.empty()) return std::nullopt;
    if (same_program(names.comm, *names.exe_base)) return std::nullopt;
    if (names.argv0_name && same_program(*names.argv0_name, *names.exe_base)) {
        return std::nullopt;  // a script (comm is its name) or a thread renamed by its program
    }
    std::string detail = fmt::format("process name {}", quote_escaped(names.comm));
    if (names.argv0_name && *names.argv0_name != names.comm) {
        detail += fmt::format(" and argv[0] {}", quote_escaped(*names.argv0_name));
    }
    detail += fmt::format(" differ from the executable {}", quote_escaped(*info.exe));
    return make_evidence(config, Signal::name_mismatch, std::move(detail));
}

}  // namespace

std::vector<Evidence> judge_names(const ProcessInfo& info, const RogueConfig& config) {
    std::vector<Evidence> evidence;
    if (info.kernel_thread) return evidence;
    const Names names = names_of(info);
    if (auto found = miner_name(names, config)) evidence.push_back(std::move(*found));
    auto posing = masquerade(info, names, config);
    if (posing) {
        evidence.push_back(std::move(*posing));
    } else if (auto differs = name_mismatch(info, names, config)) {
        evidence.push_back(std::move(*differs));
    }
    return evidence;
}

}  // namespace gpukill::detect

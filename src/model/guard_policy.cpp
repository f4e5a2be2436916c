#include "model/guard_policy.hpp"

#include <fmt/format.h>

namespace gpukill::guard {

const char* to_string(Mode mode) {
    switch (mode) {
        case Mode::off:
            return "off";
        case Mode::dry_run:
            return "dry-run";
        case Mode::enforce:
            return "enforce";
    }
    return "?";
}

const char* to_string(Action action) {
    switch (action) {
        case Action::warn:
            return "warn";
        case Action::terminate:
            return "terminate";
        case Action::kill:
            return "kill";
    }
    return "?";
}

const char* to_string(RunawayKind kind) {
    switch (kind) {
        case RunawayKind::stuck:
            return "stuck";
        case RunawayKind::idle:
            return "idle";
        case RunawayKind::orphaned:
            return "orphaned";
        case RunawayKind::rogue:
            return "rogue";
    }
    return "?";
}

std::string policy_contents(const Policy& policy) {
    const auto counted = [](std::size_t count, const char* what) {
        return fmt::format("{} {}{}", count, what, count == 1 ? "" : "s");
    };
    return fmt::format("mode {}; {}, {}, {}, {}, {}, {}", to_string(policy.mode),
                       counted(policy.users.size(), "user"), counted(policy.groups.size(), "group"),
                       counted(policy.projects.size(), "project"),
                       counted(policy.gpus.size(), "GPU rule"),
                       counted(policy.windows.size(), "time window"),
                       counted(policy.rules.size(), "runaway rule"));
}

}  // namespace gpukill::guard

#include "model/guard_decision_text.hpp"

#include <fmt/format.h>

#include "model/human_format.hpp"

namespace gpukill::guard {
namespace {

std::string action_words(Action action, std::chrono::seconds terminate_timeout) {
    if (action == Action::kill) return "kill (SIGKILL)";
    return fmt::format("terminate (SIGTERM, SIGKILL after {}s)", terminate_timeout.count());
}

std::string when(std::optional<std::int64_t> unix_ms) {
    return unix_ms ? format_local_time(*unix_ms) : std::string("?");
}

}  // namespace

std::string describe_outcome(const Decision& decision, std::chrono::seconds terminate_timeout) {
    const Action action = decision.enforcement.action;
    switch (decision.verdict) {
        case Verdict::warn:
            if (action == Action::warn) return "warn";
            return fmt::format("warn now; {} at {} if still in breach (grace {}s)",
                               action_words(action, terminate_timeout),
                               when(decision.acts_at_unix_ms),
                               decision.enforcement.grace_period.count());
        case Verdict::in_grace:
            return fmt::format(
                "warned at {}; {} at {} if still in breach", when(decision.warned_at_unix_ms),
                action_words(action, terminate_timeout), when(decision.acts_at_unix_ms));
        case Verdict::warned:
            return fmt::format("already warned at {}; nothing more (action warn)",
                               when(decision.warned_at_unix_ms));
        case Verdict::terminate:
        case Verdict::kill:
            return action_words(action, terminate_timeout) + " now";
        case Verdict::protected_process:
            return "nothing: protected, " + decision.protected_because;
    }
    return "?";
}

}  // namespace gpukill::guard

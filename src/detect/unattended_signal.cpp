#include "detect/unattended_signal.hpp"

#include <fmt/format.h>

namespace gpukill::detect {

std::optional<Evidence> judge_unattended(const SessionFacts& facts, const RogueConfig& config) {
    const bool session_gone =
        facts.session_leader_alive.has_value() && !*facts.session_leader_alive;
    if (!facts.orphaned && !session_gone) return std::nullopt;
    if (!facts.age_seconds) return std::nullopt;
    const double hours = *facts.age_seconds / 3600.0;
    if (hours < config.unattended_min_hours) return std::nullopt;
    std::string why;
    if (facts.orphaned) why = "its parent died (re-parented to init)";
    if (session_gone) {
        if (!why.empty()) why += " and ";
        why += "its session leader is gone";
    }
    return make_evidence(config, Signal::unattended,
                         fmt::format("unattended: {}, running for {:.1f} hours", why, hours));
}

}  // namespace gpukill::detect

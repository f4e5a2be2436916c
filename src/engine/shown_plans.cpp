#include "engine/shown_plans.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "engine/engine_state.hpp"

namespace gpukill::engine {
namespace {

// The interface and name: not the peer's address, whose port changes per connection.
std::string key_of(const Actor& actor) {
    return std::string(to_string(actor.interface)) + ":" + actor.name;
}

}  // namespace

bool confirms_only_shown_plans(const Actor& actor) {
    return actor.interface == Interface::agent || actor.interface == Interface::mcp;
}

void ShownPlans::shown(std::string_view kind, const std::string& plan_id, const Actor& actor,
                       TimePoint now) {
    const std::string who = key_of(actor);
    // Shown again: only the latest showing counts.
    std::erase_if(shown_, [&](const Shown& s) {
        return s.kind == kind && s.plan_id == plan_id && s.actor == who;
    });
    if (shown_.size() >= kCapacity) shown_.pop_front();
    shown_.push_back(Shown{std::string(kind), plan_id, who, now});
}

bool ShownPlans::take(std::string_view kind, const std::string& plan_id, const Actor& actor,
                      TimePoint now, std::chrono::seconds window) {
    const std::string who = key_of(actor);
    const auto found = std::find_if(shown_.begin(), shown_.end(), [&](const Shown& s) {
        return s.kind == kind && s.plan_id == plan_id && s.actor == who;
    });
    if (found == shown_.end()) return false;
    // A clock stepped back since counts as no time passed.
    const bool fresh = now - found->at <= window;
    shown_.erase(found);
    return fresh;
}

Result<void> confirm_shown(Engine& engine, std::string_view kind,
                           const std::optional<std::string>& expected, const std::string& built,
                           const Actor& actor) {
    if (!expected) return {};
    const bool same = *expected == built;
    if (!confirms_only_shown_plans(actor)) {
        if (same) return {};
    } else if (engine.state().shown_plans.take(kind, *expected, actor, engine.now(),
                                               engine.config().plan_confirmation_window)) {
        if (same) return {};
    } else {
        return fail(ErrorCategory::conflict,
                    fmt::format("{} plan {} was not shown to {} in the last {} seconds, or was "
                                "confirmed already: plan it again and confirm what is shown",
                                kind, *expected, actor.name.empty() ? "this caller" : actor.name,
                                engine.config().plan_confirmation_window.count()));
    }
    if (kind == "reset") {
        return fail(ErrorCategory::conflict,
                    fmt::format("the reset plan changed since it was shown (plan {}, now {}): "
                                "other GPUs or holders; preview it again",
                                *expected, built));
    }
    return fail(ErrorCategory::conflict,
                fmt::format("the plan changed since it was shown (plan {}, now {}): its "
                            "targets are not the same processes; preview it again",
                            *expected, built));
}

void note_shown(Engine& engine, std::string_view kind, const std::string& plan_id,
                const Actor& actor) {
    if (confirms_only_shown_plans(actor)) {
        engine.state().shown_plans.shown(kind, plan_id, actor, engine.now());
    }
}

}  // namespace gpukill::engine

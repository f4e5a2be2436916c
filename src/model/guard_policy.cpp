#include "model/guard_policy.hpp"

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

}  // namespace gpukill::guard

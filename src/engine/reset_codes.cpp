#include "engine/reset_codes.hpp"

#include "engine/outcome_codes.hpp"

namespace gpukill::engine {

int blocked_plan_exit_code(reclaim::ResetBlock block) {
    switch (block) {
        case reclaim::ResetBlock::none:
            return exit_code::ok;
        case reclaim::ResetBlock::unsupported:
            return exit_code::unsupported;
        case reclaim::ResetBlock::permission:
            return exit_code::permission_denied;
        case reclaim::ResetBlock::incomplete_group:
            return exit_code::invalid_arguments;
        case reclaim::ResetBlock::holders:
            return reset_exit::held;
    }
    return exit_code::failure;
}

int reset_failure_exit_code(reclaim::ResetFailure failure) {
    switch (failure) {
        case reclaim::ResetFailure::none:
            return exit_code::ok;
        case reclaim::ResetFailure::unsupported:
            return exit_code::unsupported;
        case reclaim::ResetFailure::permission:
            return exit_code::permission_denied;
        case reclaim::ResetFailure::lost:
        case reclaim::ResetFailure::failed:
            return exit_code::failure;
    }
    return exit_code::failure;
}

int reset_outcome_exit_code(const std::vector<reclaim::ResetAttempt>& attempts,
                            const std::vector<reclaim::ResetCheck>& checks) {
    for (const reclaim::ResetAttempt& attempt : attempts) {
        if (attempt.status.failure != reclaim::ResetFailure::none) {
            return reset_failure_exit_code(attempt.status.failure);
        }
    }
    for (const reclaim::ResetCheck& check : checks) {
        if (!check.found || check.lost) return exit_code::failure;
    }
    for (const reclaim::ResetCheck& check : checks) {
        if (!check.ok) return reset_exit::not_verified;
    }
    return exit_code::ok;
}

}  // namespace gpukill::engine

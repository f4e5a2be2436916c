// The exit code of `gpukill reset`, decided from what happened (pure). README lists them;
// 6 and 8 mean what they mean for `gpukill kill`.
#pragma once

#include <optional>
#include <vector>

#include "reclaim/reset_exec.hpp"
#include "reclaim/reset_plan.hpp"
#include "reclaim/reset_verify.hpp"

namespace gpukill::engine {

namespace reset_exit {
inline constexpr int held = 6;          // processes hold the GPU: no --force, or they survived it
inline constexpr int not_verified = 8;  // reset, but not idle (holders, memory) in --verify-timeout
}  // namespace reset_exit

// A held or refused plan: unsupported 5, permission 4, incomplete group 3, holders 6.
int blocked_plan_exit_code(reclaim::ResetBlock block);

// A vendor answer: unsupported 5, permission 4, anything else 1 (0 for none).
int reset_failure_exit_code(reclaim::ResetFailure failure);

// After the resets: the first failed attempt (in order) decides; then a GPU that did not
// come back or is lost (1); then one still held or not idle (8); else 0. `checks` holds
// one entry per GPU that was verified.
int reset_outcome_exit_code(const std::vector<reclaim::ResetAttempt>& attempts,
                            const std::vector<reclaim::ResetCheck>& checks);

}  // namespace gpukill::engine

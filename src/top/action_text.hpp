// The words of the monitor's dialogs, from the engine's plans and outcomes (pure): the
// confirmation that names every process a signal will reach, its user and the GPU
// memory it should free; after the action, per GPU, whether the memory came back; the
// preflight of a reset offered for a soft-locked GPU.
#pragma once

#include <string>
#include <vector>

#include "engine/kill.hpp"
#include "engine/reset.hpp"
#include "top/rows.hpp"

namespace gpukill::top {

// "Send SIGKILL to 2 processes?", one line per planned target (PID, user, name, GPU
// memory per GPU, why it is included when the engine added it), the refusals, the memory
// expected back per GPU. `refused` are the rows the viewer may not act on.
std::vector<std::string> confirmation_lines(const engine::KillOutcome& plan,
                                            const std::vector<Row>& refused);

// One line per target's result, then per GPU "GPU 0: 4.0 GiB came back in 0.3 s" or
// why not (still held by PIDs, soft-locked: a reset is offered, not back in time).
std::vector<std::string> kill_summary_lines(const engine::KillOutcome& outcome);

// The GPUs a kill left soft-locked (memory used, no process holding them).
std::vector<unsigned> soft_locked_gpus(const engine::KillOutcome& outcome);

// The reset preflight: what will happen to which GPUs, who holds them, and why not.
std::vector<std::string> reset_preflight_lines(const engine::ResetOutcome& preview);
// After a reset: per GPU, back and idle or not, and the vendor tool's words on failure.
std::vector<std::string> reset_summary_lines(const engine::ResetOutcome& outcome);

}  // namespace gpukill::top

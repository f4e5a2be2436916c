// Kill and reset requests as JSON: the one mapping the network interfaces share (the
// agent's /v1 API, the MCP tools, the fleet's agent transport), so a request means the
// same thing whichever of them carries it. docs/API.md documents the fields.
//
// Reading is strict: a field of the wrong type, an unknown field, or a value the engine
// would refuse to parse is an invalid_input error naming the field; nothing is guessed.
// PIDs stay as typed (decimal strings or integers) and are validated by the plan's own
// gate (reclaim::parse_target_pid), so 4294967295 or -1 is refused there exactly as on
// the command line, never wrapped or truncated here.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "engine/kill.hpp"
#include "engine/reset.hpp"
#include "model/result.hpp"

namespace gpukill::engine {

// Kill request fields: pids (array of integers or decimal strings), gpu (string or
// integer index), filter, user, container, slurm_job, image, not_image (strings),
// min_memory_bytes (integer), orphaned, unlisted, tree, group, batch, any_process, force, dry_run
// (booleans), signal (string), timeout_seconds, verify_timeout_seconds (numbers), plan_id (string:
// execute only if the plan built now has this identity). `command` is not read: the caller sets it
// to what was asked in its own words.
Result<KillRequest> kill_request_from_json(const nlohmann::json& body);
nlohmann::json kill_request_to_json(const KillRequest& request);

// Reset request fields: gpus (string: "0,1", UUIDs or bus ids), all, force, dry_run
// (booleans), timeout_seconds, verify_timeout_seconds (numbers), plan_id (string).
// nvidia_smi is never read from a request: which program runs as root is the host's
// configuration, not a client's choice.
Result<ResetRequest> reset_request_from_json(const nlohmann::json& body);
nlohmann::json reset_request_to_json(const ResetRequest& request);

}  // namespace gpukill::engine

// The audit records of act_and_verify's steps, wired once for every caller that carries
// out a plan (kill, reset --force, guard enforcement), so each writes the same sequence:
//
//   per round of signals: signal_intent (one write and sync, before the first system
//   call of the round) -> the signals -> signalled (the delivered ones)
//   -> result, one per target -> verified, one per GPU
//
// The intents are durable before any signal goes out: a caller ended by SIGKILL right
// after a send leaves a log that names what it sent. Private to src/engine.
#pragma once

#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "audit/envelope.hpp"
#include "engine/audit_trail.hpp"
#include "reclaim/act_and_verify.hpp"

namespace gpukill::engine {

// Appends one step's records (one write, one sync) before it returns.
using AppendRecords = std::function<void(const std::vector<nlohmann::ordered_json>&)>;

// `who` and `clock` stamp every record; `executed` (optional) runs when the signals are
// done, before their results are appended (a terminal clears its progress line).
reclaim::ActRecorder act_recorder(const audit::Invocation& who, SystemClock clock,
                                  AppendRecords append, std::function<void()> executed = {});

}  // namespace gpukill::engine

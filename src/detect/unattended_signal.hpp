// The unattended signal: a process nobody's session holds any more (its parent died and
// it was re-parented to init, or its session leader is gone) that has run for long.
// Weak on its own: `nohup python train.py &` and a closed terminal look the same; it
// adds to other signs. Pure.
#pragma once

#include <optional>

#include "detect/evidence.hpp"
#include "detect/rogue_config.hpp"

namespace gpukill::detect {

struct SessionFacts {
    bool orphaned = false;  // SnapshotProcess.orphaned (looks_orphaned)
    // Whether its session leader (the process whose PID is its session id) still runs;
    // empty when unknown. A session leader itself has one.
    std::optional<bool> session_leader_alive;
    std::optional<double> age_seconds;  // since it started; empty when unknown
};

std::optional<Evidence> judge_unattended(const SessionFacts& facts, const RogueConfig& config);

}  // namespace gpukill::detect

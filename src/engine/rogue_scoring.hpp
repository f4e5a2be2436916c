// The scoring behind rogue_scan, for the engine's own calls (health_check, the monitor's
// details, the guard's rogue rules): a snapshot the caller already took, judged with a
// configuration already loaded, recording nothing. Private to src/engine.
#pragma once

#include "detect/assessment.hpp"
#include "detect/config_file.hpp"
#include "detect/rogue_json.hpp"
#include "engine/engine.hpp"
#include "engine/rogue_scan.hpp"

namespace gpukill::engine {

struct RogueScoring {
    detect::RogueReport report;
    detect::ReportContext context;  // for its JSON (detect/rogue_json.hpp)
};

// `request.hours` must be above 0.
RogueScoring score_rogues(const EngineConfig& settings, Snapshot snapshot,
                          const RogueScanRequest& request, const detect::LoadedRogueConfig& config);

}  // namespace gpukill::engine

// Rogue (miner) detection as an engine call: every process holding a GPU scored from
// its name, command line, executable, network peers and usage shape (src/detect), with
// one rogue_finding audit record per finding, naming the actor.
#pragma once

#include <optional>
#include <string>

#include "detect/assessment.hpp"
#include "detect/config_file.hpp"
#include "detect/rogue_json.hpp"
#include "engine/engine.hpp"
#include "model/actor.hpp"
#include "model/result.hpp"

namespace gpukill::engine {

// engine/request_tables.cpp describes each field for every door.
struct RogueScanRequest {
    std::optional<std::string> user;  // only this user's processes (name or uid)
    double hours = 24;                // the usage history's window: more than 0
    // Not fields: what was asked, for the audit records; and a configuration file to
    // score with instead of CONFIG_DIR/rogue.yaml (the command line's
    // --rogue-config-file: a file of the person running it, never a network client's
    // choice of a file on this host).
    std::string command;
    std::optional<std::string> config_file;
};

struct RogueScanOutcome {
    detect::RogueReport report;
    detect::ReportContext context;  // for its JSON (detect/rogue_json.hpp) and table
    std::optional<std::string> audit_problem;
    // docs/JSON.md, "gpukill audit --rogue --json".
    nlohmann::ordered_json document() const;
};

// `config` is the scorer's configuration (CONFIG_DIR/rogue.yaml or another file, or
// the defaults), loaded by the caller. Errors: invalid_input (hours not above 0).
Result<RogueScanOutcome> rogue_scan(Engine& engine, const RogueScanRequest& request,
                                    const detect::LoadedRogueConfig& config, const Actor& actor);
// The same with the configuration the request names (config_file, else
// CONFIG_DIR/rogue.yaml, else the defaults). Errors as load_rogue_config's, and as above.
Result<RogueScanOutcome> rogue_scan(Engine& engine, const RogueScanRequest& request,
                                    const Actor& actor);

// The scoring alone, over a snapshot the caller already took, recording nothing: for
// health_check, which judges the same snapshot for everything else. `request.hours`
// must be above 0.
RogueScanOutcome score_rogues(const EngineConfig& settings, Snapshot snapshot,
                              const RogueScanRequest& request,
                              const detect::LoadedRogueConfig& config);

}  // namespace gpukill::engine

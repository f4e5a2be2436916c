// Rogue (miner) detection as an engine call: every process holding a GPU scored from
// its name, command line, executable, network peers and usage shape (src/detect), with
// one rogue_finding audit record per finding, naming the actor.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/engine.hpp"
#include "model/actor.hpp"
#include "model/result.hpp"
#include "model/snapshot.hpp"

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
    // docs/JSON.md, "gpukill audit --rogue --json": what every door answers with (the
    // command line's table is drawn from it).
    nlohmann::ordered_json document;
    std::size_t findings = 0;
    std::optional<std::string> audit_problem;
};

// The configuration the request names (config_file, else CONFIG_DIR/rogue.yaml, else the
// defaults). Errors: invalid_input (hours not above 0; a named file that is missing or
// malformed), unavailable or permission (CONFIG_DIR/rogue.yaml cannot be read).
Result<RogueScanOutcome> rogue_scan(Engine& engine, const RogueScanRequest& request,
                                    const Actor& actor);

// The findings of `snapshot` by risk ("critical": 1), with CONFIG_DIR/rogue.yaml, recording
// nothing: what the agent counts every rogue interval.
Result<std::map<std::string, std::size_t>> count_rogue_findings(const Engine& engine,
                                                                const Snapshot& snapshot);

}  // namespace gpukill::engine

// Changes to the files that decide what gpukill may do (the guard policy, the rogue
// detection configuration whose allow lists exempt processes) are audited actions like
// kills: written atomically here, with a record naming the actor.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "engine/engine.hpp"
#include "model/actor.hpp"
#include "model/result.hpp"

namespace gpukill::engine {

struct ConfigChange {
    std::optional<std::string> audit_problem;  // recorded in syslog only, or not at all
};

struct PolicyWrite {
    std::string path;                 // the policy file
    std::string text;                 // its new contents (already checked by the caller)
    std::string change;               // what changed, in words ("users.bob removed")
    std::optional<std::string> from;  // the file imported, for --guard-import-config
    std::string command;
    bool create_only = false;  // a new file only: an existing one is a conflict, untouched
};

// Writes the policy atomically (mode 0644, parent directories made), then records
// guard_policy_changed. Errors: the write's (nothing is recorded); conflict when
// create_only and the file exists.
Result<ConfigChange> write_guard_policy(Engine& engine, const PolicyWrite& write,
                                        const Actor& actor);

// The rogue-detection configuration in effect: `file`, else CONFIG_DIR/rogue.yaml, else
// the defaults. `document` is what `audit --rogue-config --json` prints; `yaml` the same
// settings as YAML under `header`'s lines as comments (what --rogue-export-config writes
// and --rogue-import-config takes back). Errors: as reading it (errno kept: a missing
// named file is ENOENT), invalid_input for a malformed one.
struct RogueConfigText {
    std::string source;
    nlohmann::ordered_json document;
    std::string yaml;
};
Result<RogueConfigText> rogue_config_text(const Engine& engine,
                                          const std::optional<std::string>& file,
                                          const std::string& header);

// Reads `file` (errno kept), then installs it as install_rogue_config does.
Result<std::pair<std::string, ConfigChange>> import_rogue_config(Engine& engine,
                                                                 const std::string& file,
                                                                 const std::string& command,
                                                                 const Actor& actor);

// Checks `text` as a rogue configuration, installs it as CONFIG_DIR/rogue.yaml
// atomically, then records rogue_config_installed with `from`, the file it came from.
// Returns the installed path. Errors: invalid_input (a bad file: nothing is written),
// the installation's.
Result<std::pair<std::string, ConfigChange>> install_rogue_config(Engine& engine,
                                                                  const std::string& text,
                                                                  const std::string& from,
                                                                  const std::string& command,
                                                                  const Actor& actor);

}  // namespace gpukill::engine

// The rogue-detection configuration file: CONFIG_DIR/rogue.yaml, or the file named by
// --rogue-config-file. Documented in docs/ROGUE.md; commented example in
// docs/examples/rogue.yaml.
//
// Every key is optional; a key left out keeps its default. A list given replaces the
// default list (export the defaults with --rogue-export-config to extend them). Maps
// (risk_levels, weights, usage_shape, executable_scan, allow) may give some of their
// keys only.
//
// Loading is strict and all-or-nothing: an unknown or repeated key, a wrong type, a
// repeated list entry, an impossible value (a weight above 100, risk levels out of
// order, a port above 65535, a relative executable path, a pattern in an allow list) or
// invalid YAML is one error line "FILE:LINE:COLUMN: what" (1-based), and nothing of the
// file is applied.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "detect/rogue_config.hpp"
#include "model/result.hpp"

namespace gpukill::detect {

inline constexpr const char* kRogueConfigFileName = "rogue.yaml";

// The file's text over default_rogue_config(). `source` names it in errors. Errors
// carry errno_value 0.
Result<RogueConfig> parse_rogue_config(std::string_view text, std::string_view source);

// Every setting as YAML that parse_rogue_config reads back to the same configuration.
// `header` lines are written first as comments.
std::string rogue_config_yaml(const RogueConfig& config, std::string_view header);

// The same settings as JSON (max_memory as max_memory_bytes), for --rogue-config --json.
nlohmann::ordered_json rogue_config_json(const RogueConfig& config);

struct LoadedRogueConfig {
    RogueConfig config;
    std::string source;  // the file's path, or "built-in defaults"
};

// `file` (from --rogue-config-file) when given: it must exist. Otherwise
// CONFIG_DIR/rogue.yaml when it exists, else the defaults. A file that exists but
// cannot be read is an error (errno kept), never silently the defaults.
Result<LoadedRogueConfig> load_rogue_config(const std::string& config_dir,
                                            const std::optional<std::string>& file);

// Writes `text` (already checked) as CONFIG_DIR/rogue.yaml atomically: a temporary file
// in CONFIG_DIR (created 0755 with parents when missing), written, made 0644, fsynced,
// renamed over the old one, and the directory fsynced. Readers see the old file or the
// new one, never a part. Returns the installed path.
Result<std::string> install_rogue_config(const std::string& config_dir, std::string_view text);

}  // namespace gpukill::detect

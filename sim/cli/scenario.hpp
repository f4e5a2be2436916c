#pragma once
// Scenario files: YAML that describes the simulated host (schema in docs/SIMULATOR.md).
// Validation is complete before `gpusim init` creates anything, and every error points at the
// offending line and column.

#include <filesystem>
#include <string_view>

#include "state/config.hpp"
#include "state/error.hpp"

namespace gpusim {

// Errors carry kExitUsage and read "scenario FILE:LINE:COL: what is wrong".
Result<SimConfig> parse_scenario(std::string_view yaml_text, std::string_view file_label);
Result<SimConfig> load_scenario(const std::filesystem::path& file);

// The host without a scenario: kDefaultGpuCount default GPUs on the default driver.
SimConfig default_scenario();

}  // namespace gpusim

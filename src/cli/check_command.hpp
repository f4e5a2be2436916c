// `gpukill check`: one verdict on the host's GPUs for CI pre-job scripts, Kubernetes
// probes and node-problem-detector (engine/health_check.hpp). One summary line on
// stdout, or one JSON document (docs/JSON.md). Exit 0 clean, 1 a problem, 2 unknown
// (gpukill cannot see enough to say), 3 bad options.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/global_options.hpp"
#include "engine/health_check.hpp"

namespace gpukill::cli {

namespace check_exit {
inline constexpr int problem = 1;
inline constexpr int unknown = 2;
}  // namespace check_exit

int run_check(const GlobalOptions& global, const engine::CheckRequest& request, bool json);

}  // namespace gpukill::cli

// `gpukill check`: one verdict on the host's GPUs for CI pre-job scripts, Kubernetes
// probes and node-problem-detector (engine/health_check.hpp). One summary line on
// stdout, or one JSON document (docs/JSON.md). Exit 0 clean, 1 a problem, 2 unknown
// (gpukill cannot see enough to say), 3 bad options.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/global_options.hpp"

namespace gpukill::cli {

namespace check_exit {
inline constexpr int problem = 1;
inline constexpr int unknown = 2;
}  // namespace check_exit

struct CheckOptions {
    bool json = false;
    std::optional<std::string> unaccounted_threshold;  // a size: 256M (default), 1G
    std::vector<std::string> allowed_users;            // --allow-user, repeatable
    bool idle = false;                                 // --idle: any holder is a problem
    bool no_rogue = false;
    bool no_orphans = false;
};

int run_check(const GlobalOptions& global, const CheckOptions& options);

}  // namespace gpukill::cli

// `gpukill reset` (compatible: `gpukill --reset --gpu G`, `--reset G`, `--reset --all`):
// preflight (privilege, holders, MIG, persistence, NVLink peers), reclaim the holders
// through the reclaim engine when --force is given, reset through the vendor's
// documented path, then prove the GPU answers again with its memory free. Audited.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/global_options.hpp"

namespace gpukill::cli {

struct ResetOptions {
    std::optional<std::string> gpu;  // --gpu G or --reset G: index, UUID or bus id
    bool all = false;                // --all
    bool force = false;              // reclaim holders first, then reset
    bool dry_run = false;            // preflight and plan only
    bool json = false;
    double timeout_seconds = 5;             // per signal while reclaiming holders (--timeout-secs)
    double verify_timeout_seconds = 10;     // for the memory to read free afterwards
    std::optional<std::string> nvidia_smi;  // --nvidia-smi / GPUKILL_NVIDIA_SMI; default PATH
    std::optional<std::string> plan_id;     // --plan-id, as for kill
    std::string actor = "cli";              // --actor, as for kill
};

// `argv` is recorded in the audit log.
int run_reset(const GlobalOptions& global, const ResetOptions& options,
              const std::vector<std::string>& argv);

}  // namespace gpukill::cli

// `gpukill reset` (compatible: `gpukill --reset --gpu G`, `--reset G`, `--reset --all`):
// preflight (privilege, holders, MIG, persistence, NVLink peers), reclaim the holders
// through the reclaim engine when --force is given, reset through the vendor's
// documented path, then prove the GPU answers again with its memory free. Audited.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/global_options.hpp"
#include "engine/reset.hpp"

namespace gpukill::cli {

// reset's own options; the rest of reset is its request (engine/request_tables.cpp).
struct ResetOptions {
    bool json = false;
    std::optional<std::string> nvidia_smi;  // --nvidia-smi / GPUKILL_NVIDIA_SMI; default PATH
    std::string actor = "cli";              // --actor, as for kill
};

// `argv` is recorded in the audit log.
int run_reset(const GlobalOptions& global, const ResetOptions& options,
              engine::ResetRequest request, const std::vector<std::string>& argv);

}  // namespace gpukill::cli

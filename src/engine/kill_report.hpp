// A kill plan or outcome as one JSON document (schema in docs/JSON.md, "gpukill kill
// --json"): what the command line prints and what other interfaces return.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/kill_plan.hpp"
#include "model/kill_results.hpp"

namespace gpukill::engine {

inline constexpr int kKillSchemaVersion = 1;

struct KillReport {
    const reclaim::KillPlan* plan = nullptr;
    bool dry_run = false;
    bool preview = false;  // needs --batch; nothing was signalled
    std::string first_signal = "SIGTERM";
    bool force = false;
    double timeout_seconds = 5;
    const std::vector<reclaim::TargetResult>* results = nullptr;  // null: not executed
    const std::vector<reclaim::GpuRelease>* releases = nullptr;   // null: not verified
    int exit_code = 0;
    std::string plan_id;  // empty: not shown (a reset's reclaim step)
};

nlohmann::ordered_json kill_report_json(const KillReport& report);

}  // namespace gpukill::engine

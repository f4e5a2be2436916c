// How `gpukill kill` shows a plan or its result: a table for people, one JSON
// document (schema in docs/JSON.md) for scripts.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reclaim/execute.hpp"
#include "reclaim/plan.hpp"
#include "reclaim/verify.hpp"

namespace gpukill::cli {

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
};

nlohmann::ordered_json kill_report_json(const KillReport& report);
std::string render_kill_report(const KillReport& report);

}  // namespace gpukill::cli

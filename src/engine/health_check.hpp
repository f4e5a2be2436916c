// One verdict on a host's GPUs, for CI pre-job scripts, Kubernetes probes and
// node-problem-detector (the agent's `check`): clean, a problem (with what and where),
// or unknown (gpukill cannot see enough to say). Read-only: nothing is signalled, and
// rogue findings are scored without being recorded (`rogue_scan` records them).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/engine.hpp"
#include "model/result.hpp"

namespace gpukill::engine {

// engine/request_tables.cpp describes each field for every door.
struct CheckRequest {
    // Memory the driver reports used that no listed process accounts for, per GPU,
    // above which it is a problem (a leak, or holders the driver does not list).
    std::uint64_t unaccounted_memory_bytes = 256ULL << 20;
    // A holder whose user is not one of these is a problem (empty: any user).
    std::vector<std::string> allowed_users;
    bool idle = false;    // any holder is a problem (a CI runner expects its GPUs idle)
    bool orphans = true;  // orphaned holders (a dead trainer's workers) are a problem
    // A rogue finding scoring rogue.yaml's check_threshold (60) or more is a problem; a
    // lower finding is a note (docs/ROGUE.md, "gpukill check").
    bool rogue = true;
};

enum class CheckVerdict { clean, problem, unknown };
const char* to_string(CheckVerdict verdict);

struct CheckFinding {
    // soft_locked (memory used, no process holds the GPU), unaccounted_memory, lost_gpu,
    // orphaned_holder, unexpected_holder, rogue_process.
    std::string kind;
    std::optional<unsigned> gpu;
    std::optional<pid_t> pid;
    std::string detail;  // one line for people
};

struct CheckOutcome {
    CheckVerdict verdict = CheckVerdict::clean;
    std::vector<CheckFinding> problems;
    std::vector<std::string> unknowns;  // why gpukill cannot see enough to say
    std::vector<std::string> notes;     // what limited it without changing the verdict
    std::size_t gpus = 0;
    std::string summary;  // one line: what node-problem-detector shows as the condition
};

// Errors: invalid_input (idle and allowed_users together: they contradict).
Result<CheckOutcome> health_check(Engine& engine, const CheckRequest& request);

inline constexpr int kCheckSchemaVersion = 1;

// {"schema_version", "verdict", "summary", "gpus", "problems": [{"kind", "gpu", "pid",
// "detail"}], "unknowns", "notes"}: docs/JSON.md, "gpukill check --json".
nlohmann::ordered_json check_json(const CheckOutcome& outcome);

}  // namespace gpukill::engine

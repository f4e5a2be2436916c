// The audit trail of one `gpukill reset` run: the reset records (audit/reset_records.hpp)
// and, when --force reclaims the holders, the reclaim records of that step, all under one
// run_id. As for kill, a log that cannot be opened leaves syslog and a warning.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/audit_trail.hpp"
#include "reclaim/execute.hpp"
#include "reclaim/plan.hpp"
#include "reclaim/reset_exec.hpp"
#include "reclaim/reset_plan.hpp"
#include "reclaim/reset_verify.hpp"
#include "reclaim/verify.hpp"

namespace gpukill::cli {

class ResetAudit {
  public:
    ResetAudit(const std::string& state_dir, const std::vector<std::string>& argv);

    void planned(const reclaim::ResetPlan& plan, bool dry_run);
    void refused(const reclaim::ResetPlan& plan, const std::string& why,
                 const std::vector<pid_t>& holders);
    void reclaim_planned(const reclaim::KillPlan& plan);
    void reclaim_executed(const reclaim::ExecuteResult& executed);
    void reclaim_verified(const std::vector<reclaim::GpuRelease>& releases);
    void result(const reclaim::ResetGpu& gpu, const reclaim::ResetAttempt& attempt,
                const std::optional<reclaim::ResetCheck>& check);

    bool ok() const { return trail_.ok(); }
    const std::string& problem() const { return trail_.problem(); }

  private:
    void append_all(const std::vector<nlohmann::ordered_json>& records) {
        trail_.append_all(records);
    }
    AuditTrail trail_;
};

}  // namespace gpukill::cli

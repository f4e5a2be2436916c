// The audit trail of one `gpukill kill` run. Opening the log can fail (read-only
// state directory); the run still proceeds, syslog still gets every record (the
// audit log sends there even when its file write fails), and the problem is reported.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/audit_trail.hpp"
#include "reclaim/execute.hpp"
#include "reclaim/plan.hpp"
#include "reclaim/verify.hpp"

namespace gpukill::cli {

class KillAudit {
  public:
    KillAudit(const std::string& state_dir, const std::vector<std::string>& argv);

    void planned(const reclaim::KillPlan& plan);
    void executed(const reclaim::ExecuteResult& executed);
    void verified(const std::vector<reclaim::GpuRelease>& releases);

    bool ok() const { return trail_.ok(); }
    const std::string& problem() const { return trail_.problem(); }

  private:
    void append_all(const std::vector<nlohmann::ordered_json>& records) {
        trail_.append_all(records);
    }
    AuditTrail trail_;
};

}  // namespace gpukill::cli

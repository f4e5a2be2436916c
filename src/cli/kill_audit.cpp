#include "cli/kill_audit.hpp"

#include <fmt/format.h>

#include "audit/reclaim_records.hpp"
#include "audit/syslog_line.hpp"

namespace gpukill::cli {

KillAudit::KillAudit(const std::string& state_dir, const std::vector<std::string>& argv)
    : trail_(state_dir, argv) {}

void KillAudit::planned(const reclaim::KillPlan& plan) {
    append_all(audit::plan_records(trail_.who(), plan));
}

void KillAudit::executed(const reclaim::ExecuteResult& executed) {
    append_all(audit::execution_records(trail_.who(), executed));
}

void KillAudit::verified(const std::vector<reclaim::GpuRelease>& releases) {
    append_all(audit::verification_records(trail_.who(), releases));
}

}  // namespace gpukill::cli

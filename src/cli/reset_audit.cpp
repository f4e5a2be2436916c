#include "cli/reset_audit.hpp"

#include <fmt/format.h>

#include "audit/reclaim_records.hpp"
#include "audit/reset_records.hpp"
#include "audit/syslog_line.hpp"

namespace gpukill::cli {

ResetAudit::ResetAudit(const std::string& state_dir, const std::vector<std::string>& argv)
    : trail_(state_dir, argv) {}

void ResetAudit::planned(const reclaim::ResetPlan& plan, bool dry_run) {
    append_all({audit::reset_planned_record(trail_.who(), plan, dry_run)});
}

void ResetAudit::refused(const reclaim::ResetPlan& plan, const std::string& why,
                         const std::vector<pid_t>& holders) {
    append_all({audit::reset_refused_record(trail_.who(), plan, why, holders)});
}

void ResetAudit::reclaim_planned(const reclaim::KillPlan& plan) {
    append_all(audit::plan_records(trail_.who(), plan));
}

void ResetAudit::reclaim_executed(const reclaim::ExecuteResult& executed) {
    append_all(audit::execution_records(trail_.who(), executed));
}

void ResetAudit::reclaim_verified(const std::vector<reclaim::GpuRelease>& releases) {
    append_all(audit::verification_records(trail_.who(), releases));
}

void ResetAudit::result(const reclaim::ResetGpu& gpu, const reclaim::ResetAttempt& attempt,
                        const std::optional<reclaim::ResetCheck>& check) {
    append_all({audit::reset_result_record(trail_.who(), gpu, attempt, check)});
}

}  // namespace gpukill::cli

#include "cli/reset_audit.hpp"

#include <fmt/format.h>

#include "audit/reclaim_records.hpp"
#include "audit/reset_records.hpp"
#include "audit/syslog_line.hpp"

namespace gpukill::cli {

ResetAudit::ResetAudit(const std::string& state_dir, const std::vector<std::string>& argv)
    : who_(audit::current_invocation(argv)) {
    auto log = audit::AuditLog::open(state_dir);
    if (log) {
        log_.emplace(std::move(*log));
    } else {
        problem_ =
            fmt::format("audit log unavailable, actions go to syslog only: {}", log.error().what);
    }
}

void ResetAudit::append_all(const std::vector<nlohmann::ordered_json>& records) {
    if (!log_) {
        for (const auto& record : records) {
            audit::system_syslog()(audit::syslog_priority(record), audit::syslog_line(record));
        }
        return;
    }
    auto appended = log_->append_all(records);
    if (!appended && !problem_) problem_ = "audit log write failed: " + appended.error().what;
}

void ResetAudit::planned(const reclaim::ResetPlan& plan, bool dry_run) {
    append_all({audit::reset_planned_record(who_, plan, dry_run)});
}

void ResetAudit::refused(const reclaim::ResetPlan& plan, const std::string& why,
                         const std::vector<pid_t>& holders) {
    append_all({audit::reset_refused_record(who_, plan, why, holders)});
}

void ResetAudit::reclaim_planned(const reclaim::KillPlan& plan) {
    append_all(audit::plan_records(who_, plan));
}

void ResetAudit::reclaim_executed(const reclaim::ExecuteResult& executed) {
    append_all(audit::execution_records(who_, executed));
}

void ResetAudit::result(const reclaim::ResetGpu& gpu, const reclaim::ResetAttempt& attempt,
                        const std::optional<reclaim::ResetCheck>& check) {
    append_all({audit::reset_result_record(who_, gpu, attempt, check)});
}

}  // namespace gpukill::cli

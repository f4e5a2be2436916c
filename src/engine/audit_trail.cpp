#include "engine/audit_trail.hpp"

#include <fmt/format.h>

#include "audit/syslog_line.hpp"

namespace gpukill::engine {

ActionLog::ActionLog(std::string state_dir, audit::AuditLogOptions options)
    : state_dir_(std::move(state_dir)), options_(std::move(options)) {}

Result<void> ActionLog::append_all(const std::vector<nlohmann::ordered_json>& records) {
    if (!log_) {
        auto opened = audit::AuditLog::open(state_dir_, options_);
        if (opened) {
            log_.emplace(std::move(*opened));
            open_problem_.reset();
        } else {
            open_problem_ = fmt::format("audit log unavailable, actions go to syslog only: {}",
                                        opened.error().what);
        }
    }
    if (!log_) {
        if (options_.use_syslog) {
            const audit::SyslogSink& sink =
                options_.syslog ? options_.syslog : audit::system_syslog();
            for (const auto& record : records) {
                sink(audit::syslog_priority(record), audit::syslog_line(record));
            }
        }
        return std::unexpected(Error{*open_problem_, 0, ErrorCategory::unavailable});
    }
    return log_->append_all(records);
}

AuditTrail::AuditTrail(ActionLog& log, audit::Invocation who, SystemClock clock)
    : log_(&log), who_(std::move(who)), clock_(std::move(clock)) {}

Result<void> AuditTrail::append_all(const std::vector<nlohmann::ordered_json>& records) {
    auto appended = log_->append_all(records);
    if (!appended && !problem_) {
        problem_ = log_->open_problem() ? *log_->open_problem()
                                        : "audit log write failed: " + appended.error().what;
    }
    return appended;
}

}  // namespace gpukill::engine

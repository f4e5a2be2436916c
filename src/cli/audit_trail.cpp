#include "cli/audit_trail.hpp"

#include <fmt/format.h>

#include "audit/syslog_line.hpp"

namespace gpukill::cli {

AuditTrail::AuditTrail(const std::string& state_dir, const std::vector<std::string>& argv)
    : who_(audit::current_invocation(argv)) {
    auto log = audit::AuditLog::open(state_dir);
    if (log) {
        log_.emplace(std::move(*log));
    } else {
        problem_ =
            fmt::format("audit log unavailable, actions go to syslog only: {}", log.error().what);
    }
}

Result<void> AuditTrail::append_all(const std::vector<nlohmann::ordered_json>& records) {
    if (!log_) {
        for (const auto& record : records) {
            audit::system_syslog()(audit::syslog_priority(record), audit::syslog_line(record));
        }
        return {};
    }
    auto appended = log_->append_all(records);
    if (!appended && !problem_) problem_ = "audit log write failed: " + appended.error().what;
    return appended;
}

}  // namespace gpukill::cli

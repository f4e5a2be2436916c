// Where one command's audit records go. Opening the log can fail (read-only state
// directory); the command still proceeds, syslog still gets every record (the audit
// log sends there even when its file write fails), and the problem is reported once.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "audit/audit_log.hpp"
#include "audit/envelope.hpp"
#include "model/result.hpp"

namespace gpukill::cli {

class AuditTrail {
  public:
    AuditTrail(const std::string& state_dir, const std::vector<std::string>& argv);
    // One step's records: one write and one sync, or syslog alone without a log. The
    // first failure is kept as problem(); each failed write is also returned, for
    // long-running callers (guard run) that report every one.
    Result<void> append_all(const std::vector<nlohmann::ordered_json>& records);
    const audit::Invocation& who() const { return who_; }
    bool ok() const { return !problem_.has_value(); }
    const std::string& problem() const { return *problem_; }

  private:
    audit::Invocation who_;
    std::optional<audit::AuditLog> log_;
    std::optional<std::string> problem_;
};

}  // namespace gpukill::cli

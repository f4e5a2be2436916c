// Where the engine's audit records go. Interfaces never write them: every call that acts
// gets an AuditTrail from the engine, bound to its Invocation (who, which interface,
// one run_id), and the engine appends each step's records as the step completes.
//
// The action log is opened on the first record, so calls that only read (list) never
// create it. Opening can fail (read-only state directory); the action still proceeds,
// syslog still gets every record (the audit log sends there even when its file write
// fails), and the problem is kept for the caller to report once.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "audit/audit_log.hpp"
#include "audit/envelope.hpp"
#include "model/result.hpp"

namespace gpukill::engine {

using SystemClock = std::function<std::chrono::system_clock::time_point()>;

// The engine's one action log, shared by every call of a long-running process.
// Thread-safe as AuditLog is, once opened; opening is serialised by the caller (the
// engine is used from one thread at a time).
class ActionLog {
  public:
    ActionLog(std::string state_dir, audit::AuditLogOptions options);

    // One step's records: one write and one sync, or syslog alone without a file.
    Result<void> append_all(const std::vector<nlohmann::ordered_json>& records);
    // Why the file could not be opened, when it could not (tried again on each append).
    const std::optional<std::string>& open_problem() const { return open_problem_; }

  private:
    std::string state_dir_;
    audit::AuditLogOptions options_;
    std::optional<audit::AuditLog> log_;
    std::optional<std::string> open_problem_;
};

class AuditTrail {
  public:
    AuditTrail(ActionLog& log, audit::Invocation who, SystemClock clock);
    // The first failure is kept as problem(); each failed write is also returned, for
    // long-running callers (guard) that report every one.
    Result<void> append_all(const std::vector<nlohmann::ordered_json>& records);
    const audit::Invocation& who() const { return who_; }
    std::chrono::system_clock::time_point now() const { return clock_(); }
    bool ok() const { return !problem_.has_value(); }
    const std::optional<std::string>& problem() const { return problem_; }

  private:
    ActionLog* log_;
    audit::Invocation who_;
    SystemClock clock_;
    std::optional<std::string> problem_;
};

}  // namespace gpukill::engine

// The action log: every effect gpukill has on a host (planned, refused, signalled,
// result, verified) as one JSON line in STATE_DIR/audit.jsonl, and a one-line summary
// to syslog. The record schemas are in docs/AUDIT.md; the builders in reclaim_records.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/result.hpp"
#include "sys/fd_io.hpp"

namespace gpukill::audit {

inline constexpr const char* kAuditFileName = "audit.jsonl";

// Receives one syslog message: priority (LOG_INFO, LOG_NOTICE, LOG_WARNING, without the
// facility) and the summary line. Tests pass their own to capture what would be sent.
// Called outside the log's lock, so it must be thread-safe if threads share the log.
using SyslogSink = std::function<void(int priority, std::string_view line)>;

// The real syslog: ident "gpukill", facility LOG_AUTHPRIV (security-relevant actions go
// where sudo's go: /var/log/auth.log or the journal, readable by administrators only).
SyslogSink system_syslog();

struct AuditLogOptions {
    bool use_syslog = true;
    SyslogSink syslog;  // empty: system_syslog()
};

// Appends are whole lines under many concurrent writers (processes and threads) and
// survive a crash of the writer once append() has returned:
//   - each record is serialised to ONE line and written with one write() while holding
//     flock(LOCK_EX) on the file (O_APPEND places it at the end; the lock also covers
//     retries after a short write, so lines never interleave);
//   - fdatasync before append() returns;
//   - a line cut short by a writer that died mid-write (killed, disk full) is ended with
//     '\n' by the next append, so it costs only itself; a write that fails in this
//     process is truncated away before the lock is released.
// A log file renamed away (logrotate's create mode) or deleted is noticed and the path
// reopened.
// Each process opens its own AuditLog: a forked child sharing the parent's open file
// would share its flock too. Thread-safe within a process.
class AuditLog {
  public:
    // Creates STATE_DIR (mode 0750, parents as needed) and audit.jsonl in it (0640),
    // existing ones are used as they are. Errors: the path and the OS reason, one line.
    static Result<AuditLog> open(const std::string& state_dir, AuditLogOptions options = {});

    // Writes the record to the file, then sends its summary to syslog (also when the
    // file write failed, so the action is still recorded somewhere). The error is the
    // file's. Strings that are not valid UTF-8 (process names are arbitrary bytes) are
    // written with U+FFFD in place of the bad bytes.
    Result<void> append(const nlohmann::ordered_json& record);
    // The records of one step (200 "result" records of a batch kill) as one write and
    // one sync: whole lines, in order, all or none on disk, at the cost of one append.
    Result<void> append_all(const std::vector<nlohmann::ordered_json>& records);

    const std::string& path() const { return path_; }

  private:
    AuditLog(std::string dir, std::string path, UniqueFd fd, AuditLogOptions options);
    Result<void> reopen_if_replaced();
    Result<void> write_locked(std::string line);

    std::string dir_;   // the state directory, without trailing slashes
    std::string path_;  // dir_/audit.jsonl
    UniqueFd fd_;
    AuditLogOptions options_;
    std::unique_ptr<std::mutex> mutex_;  // threads share one open file, so flock alone
                                         // would not keep them apart
};

}  // namespace gpukill::audit

// The syslog side of the audit log: a compact one-line summary of a record and its
// priority. Pure functions of the record, so what reaches syslog is tested without it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gpukill::audit {

// LOG_WARNING: refused; a plan that was aborted; a result with outcome "survived"; a GPU
//              whose memory did not come back (not released, or soft-locked).
// LOG_NOTICE:  signalled; every other result; a GPU whose memory came back; any event
//              this version does not know.
// LOG_INFO:    a plan that was not aborted (intent; nothing has happened yet).
// Resets: reset_planned is LOG_INFO, reset_refused LOG_WARNING, reset_result LOG_NOTICE
// when verified and LOG_WARNING otherwise.
int syslog_priority(const nlohmann::ordered_json& record);

// "EVENT key=value ...": the fields an administrator needs to find the full record
// (run_id) and see what happened, e.g.
//   result pid=4242 name=python user=alice outcome=killed signals=SIGTERM,SIGKILL
//   elapsed_seconds=5.2 by=bob uid=1000 run_id=3f...
// Values with spaces, quotes or control characters are double-quoted with those
// characters escaped (\", \\, \xNN), so one record is always one line and no field can
// forge another. At most kMaxSyslogLineBytes (longer lines end in "...").
inline constexpr std::size_t kMaxSyslogLineBytes = 1024;
std::string syslog_line(const nlohmann::ordered_json& record);

}  // namespace gpukill::audit

// Who did it, where and when: the fields every audit record starts with. The
// invocation is gathered once per run so every record of the run carries the same
// run_id and command.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/actor.hpp"
#include "model/quoted_text.hpp"

namespace gpukill::audit {

// Bumped only when a field changes meaning or goes away; adding fields keeps it.
inline constexpr int kAuditSchemaVersion = 1;

struct Invocation {
    std::string host;
    std::string user;  // account name of the real uid (the number as text if it has none)
    uid_t uid = 0;     // real uid: who ran gpukill
    uid_t euid = 0;    // effective uid: whose privileges it acted with
    // SUDO_USER / SUDO_UID as found in the environment: who ran sudo. Only as trustworthy
    // as the environment (sudo sets them; anyone can set them without sudo).
    std::optional<std::string> sudo_user;
    std::optional<uid_t> sudo_uid;
    pid_t pid = 0;        // gpukill's own PID
    std::string command;  // argv, shell-quoted where an argument needs it
    std::string run_id;   // 32 hex digits, random per run: groups the records of one run
    Actor actor;          // who asked, through which interface (cli: the user above)
};

// Reads host name, uids, SUDO_* and PID of the calling process. Never fails: a value
// that cannot be read is left empty ("" host, a run_id from time and PID).
Invocation current_invocation(const std::vector<std::string>& argv);

// The same for an action an interface carries out on `actor`'s behalf: `command` is
// what was asked, in the interface's words (argv for the command line, the API call
// otherwise); a new run_id.
Invocation invocation_for(const Actor& actor, std::string command);

// This process's user acting through `interface` (cli, guard): name = the account name.
Actor local_actor(Interface interface);

// 32 random hex digits.
std::string new_run_id();

using gpukill::shell_join;  // model/quoted_text.hpp

// {"schema_version", "event", "timestamp", "timestamp_unix_ms", "host", "user", "uid",
//  "euid", "sudo_user", "sudo_uid", "gpukill_pid", "command", "run_id",
//  "actor": {"interface", "name", "remote"}}; docs/AUDIT.md.
nlohmann::ordered_json audit_envelope(
    std::string_view event, const Invocation& who,
    std::chrono::system_clock::time_point when = std::chrono::system_clock::now());

}  // namespace gpukill::audit

// The state directory (STATE_DIR: the audit log, the usage history) is created on first
// use with mode 0750 so other users cannot read who killed what or what ran where.
#pragma once

#include <string>

#include "model/result.hpp"

namespace gpukill {

inline constexpr unsigned kStateDirMode = 0750;
inline constexpr unsigned kStateFileMode = 0640;

// mkdir -p with mode 0750 for the directories it creates; existing ones keep theirs (an
// administrator's choice), the umask can only narrow it. Errors name the directory and
// the OS reason: "cannot create state directory /var/lib/gpukill: Permission denied".
Result<void> make_state_directory(const std::string& dir);

// The directory with every symbolic link on the way resolved (realpath): SQLite, opened
// with SQLITE_OPEN_NOFOLLOW so that the history file itself cannot be a link, refuses a
// link anywhere in the path, and an administrator's /var/lib/gpukill -> /data/gpukill is
// no attack. Errors name the directory and the OS reason (ENOENT when it does not exist).
Result<std::string> resolved_state_directory(const std::string& dir);

// "/var/lib/gpukill/" -> "/var/lib/gpukill"; "/" stays "/".
std::string without_trailing_slashes(std::string path);

// dir + "/" + name, without doubling the slash for "/".
std::string state_file_path(const std::string& dir, const std::string& name);

}  // namespace gpukill

// Warnings on the offending user's terminals, as wall(1) does it but for one user:
// the terminals are the ttys that user's processes have on stdin, stdout or stderr.
// Best effort: a terminal that cannot be written is skipped.
#pragma once

#include <sys/types.h>

#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "model/host_roots.hpp"

namespace gpukill::engine {

// Whether a /proc/PID/fd link target is a terminal device: /dev/pts/N or /dev/ttyN.
// Pure. Other ttys (serial lines, consoles) are not written to.
bool is_user_terminal(std::string_view link_target);

// The terminals of `uid`'s processes under roots.procfs (fds 0, 1 and 2).
std::set<std::string> user_terminals(const HostRoots& roots, uid_t uid);

// Writes `message` (made printable, one line, framed by blank lines) to each terminal
// that is a character device owned by `uid`; returns those written to.
std::set<std::string> write_to_terminals(const std::set<std::string>& terminals, uid_t uid,
                                         std::string_view message);

}  // namespace gpukill::engine

// How process names are compared: configured name patterns, the name a process claims
// (comm, argv[0]) and whether a claimed name is really its executable's. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpukill::detect {

// The last path component ("/usr/bin/python3" -> "python3").
std::string_view base_name(std::string_view path);

// ASCII letters compared case-insensitively, every other byte exactly.
bool equal_ignoring_case(std::string_view a, std::string_view b);

// A configured name: exact, or a prefix when it ends in '*' ("xmrig*" covers
// "xmrig-6.21"). ASCII letters compare case-insensitively ("XMRig" is "xmrig").
bool name_matches(std::string_view name, std::string_view pattern);
// The first pattern `name` matches, if any.
std::optional<std::string> first_match(std::string_view name,
                                       const std::vector<std::string>& patterns);

// The program name argv[0] claims: up to the first space (setproctitle writes
// "sshd: alice@pts/0"), without a trailing ':' and a login shell's leading '-', last
// path component. Empty optional when nothing is left.
std::optional<std::string> argv0_name(std::string_view argv0);

// Whether a process calling itself `claimed` runs the executable `exe_base` honestly:
// the same name; comm's 15-byte cut of a longer name ("nvidia-persistenced" shows as
// "nvidia-persiste"); or a versioned file behind a symlink ("python" and "python3" run
// "python3.11", "node" runs "node-18"): the executable's name continues with a version
// (a digit, or '.', '-' or '_' then a digit). "python" does not run "python-xmrig".
bool same_program(std::string_view claimed, std::string_view exe_base);

// Whether `path` is inside the directory `dir` ("/tmp" holds "/tmp/x" but neither
// "/tmpfoo/x" nor "/tmp" itself; "/" holds everything).
bool path_inside(std::string_view path, std::string_view dir);

// argv[0] written like a kernel thread ("[kworker/0:1]").
bool bracketed(std::string_view argv0);

}  // namespace gpukill::detect

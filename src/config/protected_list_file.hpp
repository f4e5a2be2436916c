// The protected list from CONFIG_DIR/protected.yaml: processes no path of gpukill may
// signal (programs, users, PIDs). Documented example: docs/examples/protected.yaml.
//
//   names:                               # programs, each protected only where a process
//     - Xorg                             #   runs it as a system program
//     - {path: /opt/triton/bin/tritonserver}  # (reclaim/system_program.hpp): a file
//     - {name: nv-hostengine, user: root}     # name, an exact path, and an account
//   users: [slurm]                       # exact account names
//   pids: [1234]                         # positive integers
//   replace_defaults: false              # true: only this file, without the built-in list
//
// A name matches the executable's file name, never comm (any process may set that);
// with `user`, only that account's processes running it.
// Loading is strict and all-or-nothing: an unknown or repeated key, a wrong type, an
// empty name, a name with '/', a path that is not absolute and canonical, a PID that is
// not a positive integer within the kernel's limit, or invalid YAML is one error line
// "FILE:LINE:COLUMN: what" (1-based), and nothing of the file is applied.
#pragma once

#include <string>
#include <string_view>

#include "model/result.hpp"
#include "reclaim/select.hpp"

namespace gpukill::config {

inline constexpr const char* kProtectedListFileName = "protected.yaml";

// The kernel's PID_MAX_LIMIT on 64-bit: no PID is larger on any host.
inline constexpr long kMaxPid = 4194304;

// Parses the file's text. `source` names it in errors. The file's entries are added to
// `defaults` unless it says replace_defaults: true. An empty document adds nothing;
// a key whose value is empty (`names:`) is an empty list.
Result<reclaim::ProtectedList> parse_protected_list(std::string_view text, std::string_view source,
                                                    const reclaim::ProtectedList& defaults);

// CONFIG_DIR/protected.yaml over reclaim::default_protected_list(). No file (or no
// CONFIG_DIR): the defaults. A file that exists but cannot be read is an error, never
// silently the defaults.
Result<reclaim::ProtectedList> load_protected_list(const std::string& config_dir);

}  // namespace gpukill::config

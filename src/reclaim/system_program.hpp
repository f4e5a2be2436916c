// Whether a process runs a system program: what lets an entry that names a program (a
// protected name or path, built in or in protected.yaml; a guard policy's protected or
// allowed executable) match it. A process's name, command line and environment are its
// user's to choose; the files it runs code from, who owns them and who may write the
// directories above them are not.
//
// The rule: a process runs a system program when
//   - it is in gpukill's own user namespace (in a user namespace of its own, an ordinary
//     user is root of its mounts and can bind any root-owned file under any path);
//   - its executable and every file it maps executable (shared libraries, preloads,
//     plugins) are regular files owned by root (uid 0) that neither group nor others may
//     write;
//   - every directory on each of those paths, from the process's root "/" down, is owned
//     by root and writable by neither group nor others (so /tmp, /var/tmp, a home or a
//     build directory a user owns never qualify, sticky or not: a user could have linked
//     or placed the file there). A file deleted since it was mapped (a package upgrade)
//     still counts when its directory does and its inode is root's.
// Paths are the kernel's own, resolved inside the process's root without following a
// link. A process whose files cannot be read (gone, or another user's without the
// privilege to look) is not a system program: protection by program is then not given.
// Which program it is comes from the executable's path alone (its file name for a name
// entry, the whole path for a path entry), never from comm.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "host/program_files.hpp"
#include "model/host_roots.hpp"
#include "model/process.hpp"
#include "model/snapshot.hpp"
#include "reclaim/select.hpp"

namespace gpukill::reclaim {

// Why these files do not make a system program ("its executable /tmp/x/Xorg is in /tmp,
// which others may write"); empty when they do. Pure.
std::optional<std::string> not_system_program(const ProgramFiles& files);

// Whether an entry names the process's executable: an entry holding '/' is its exact path,
// any other its exact file name. Only the executable's path is read. Pure.
bool executable_named(const ProcessInfo& info, const std::set<std::string>& entries);

// Every entry of `list` that names a program (names, paths and owned programs' keys).
std::set<std::string> program_entries(const ProtectedList& list);

// The processes among `processes` that an entry names and that run a system program, each
// checked with read_program_files and kept only when the process read is the one given
// (same start time). Only named processes are read: a handful per call.
SystemPrograms find_system_programs(const HostRoots& roots,
                                    const std::vector<const ProcessInfo*>& processes,
                                    const std::set<std::string>& entries);

// For a plan: the snapshot's processes and the table's, against the safety context's
// protected list; sets safety.system_programs.
void find_system_programs(const HostRoots& roots, const Snapshot& snapshot,
                          const ProcessTable& table, SafetyContext& safety);

}  // namespace gpukill::reclaim

// The files a process runs code from (its executable and every file it maps executable),
// each with the directories above it, as the kernel shows them: the facts that decide
// whether a process runs only files that root placed (reclaim/system_program.hpp). A
// process cannot set any of them: names, command lines and environments are not read.
//
// Paths are the kernel's (/proc/PID/exe, /proc/PID/maps), which name files inside the
// process's own root and mount namespace; they are looked up there, through
// PROCFS/PID/root, one component at a time, never following a symbolic link.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/host_roots.hpp"
#include "model/result.hpp"

namespace gpukill {

// What stat says of a file or directory.
struct FileFacts {
    uid_t uid = 0;
    mode_t mode = 0;  // st_mode: type and permission bits
};

// One directory on a file's path: "/" first, then each one down to the file's own.
struct PathStep {
    std::string path;
    FileFacts facts;
};

// A file the process runs code from.
struct ProgramFile {
    std::string path;  // as the kernel names it, " (deleted)" taken off
    bool deleted = false;
    std::vector<PathStep> directories;
    // Why the lookup stopped before the file: a component missing or unreadable, not a
    // directory (a symbolic link), or an odd path. Empty when every directory was seen.
    std::optional<std::string> unresolved;
    // The file itself: the very inode the process runs or maps where the kernel lets it be
    // read (PROCFS/PID/exe; PROCFS/PID/map_files for a deleted mapping), else the file the
    // path names now. Empty when neither could be read.
    std::optional<FileFacts> file;
};

struct ProgramFiles {
    std::uint64_t start_time_ticks = 0;  // of the process read (stat, through the same fd)
    // PROCFS/PID/ns/user is PROCFS/self/ns/user: the process is in gpukill's own user
    // namespace, where only root owns root's files and makes mounts.
    bool own_user_namespace = false;
    ProgramFile executable;
    std::vector<ProgramFile> mapped;  // every other file mapped executable, once each
    // More distinct files were mapped executable than are looked at (kMaxMappedFiles).
    bool mapped_truncated = false;
};

inline constexpr std::size_t kMaxMappedFiles = 4096;

// One line of /proc/PID/maps that maps a file executable.
struct ExecutableMapping {
    std::string range;  // "7f12a000-7f12b000": its name under PROCFS/PID/map_files
    std::string path;   // " (deleted)" taken off
    bool deleted = false;
};

// The executable file mappings of /proc/PID/maps, in order, each path once. Anonymous
// and special mappings ([vdso], [heap], no path) are left out. Pure.
std::vector<ExecutableMapping> parse_executable_mappings(std::string_view maps_text);

// Reads them for `pid`, every file through one open PROCFS/PID directory (so a PID reused
// meanwhile is an error, not another process's files). Fails when the process is gone or
// its executable cannot be read (another user's process without the privilege to look).
Result<ProgramFiles> read_program_files(const HostRoots& roots, pid_t pid);

}  // namespace gpukill

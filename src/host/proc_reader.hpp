// Reads processes from procfs. Effects only: file reading here, parsing in proc_parse.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "host/proc_parse.hpp"
#include "model/host_roots.hpp"
#include "model/process.hpp"
#include "model/result.hpp"

namespace gpukill {

// Every numeric entry of procfs (a process may be gone by the time it is read).
Result<std::vector<pid_t>> list_pids(const HostRoots& roots);

// One process's details. Fails only when stat cannot be read (the process is gone or
// procfs is unreadable); fields that are unreadable for permission reasons stay unknown.
// All files are read through one open PROCFS/PID directory, so a PID reused mid-read
// cannot mix two processes; a process that exits mid-read is an error (errno ESRCH), not
// a half-filled record. Kernel threads and zombies have no exe and an empty cmdline.
// uid is the real uid; user is user_name(uid), "" when uid is unknown.
Result<ProcessInfo> read_process(const HostRoots& roots, pid_t pid);

// The process `pid` belongs to (Tgid in PROCFS/PID/status): `pid` itself for a process,
// another PID when `pid` is one of its threads (the kernel lets a thread's id be looked up
// as PROCFS/TID although no listing shows it). Fails when it cannot be read.
Result<pid_t> read_thread_group(const HostRoots& roots, pid_t pid);

// Start time alone (field 22), the cheap identity check.
Result<std::uint64_t> read_start_time(const HostRoots& roots, pid_t pid);

// /proc/PID/stat alone: the identity and the fields that change without an event
// (parent, group, session, state, name).
Result<ProcStat> read_process_stat(const HostRoots& roots, pid_t pid);

// Sets what stat says of a process (pid, parent, group, session, name, state, start time,
// kernel thread) on `info`, leaving the fields other files give.
void apply_process_stat(const ProcStat& stat, ProcessInfo& info);

// Whether `roots.procfs` shows the initial PID namespace, the one that holds every process
// of the host. kthreadd, the kernel's thread creator, is PID 2 there and only there: kernel
// threads belong to the initial namespace, and a procfs mounted for any other (a pod
// without hostPID, a container) lists none. The flag read is the kernel's (PF_KTHREAD in
// /proc/2/stat), which no process can set. False when PID 2 is missing or unreadable.
bool procfs_shows_initial_pid_namespace(const HostRoots& roots);

// Name for a uid, or the number as text when the account database has none.
// Thread-safe (getpwuid_r); answers (found, or no such account) are cached for five
// minutes, at most 4096 of them; NSS failures show the number this time and are asked
// again next time.
std::string user_name(uid_t uid);

// Reads a whole small file (procfs and sysfs files report size 0, so read until EOF).
Result<std::string> read_text_file(const std::string& path);

}  // namespace gpukill

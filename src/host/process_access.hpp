// Why this process cannot read other processes' open files, said as what is missing:
// not root; root without CAP_SYS_PTRACE (a container drops it by default); or, with
// both, processes beyond any root here (a sandbox's or VM's init holding capabilities
// this process lacks). And whether gpukill sees only its own PID namespace (a container
// without the host's PID namespace), where the host's holders are simply absent.
// Deciding is pure (facts in, words out); reading the facts is a few status files.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "model/host_roots.hpp"
#include "model/process_access_facts.hpp"

namespace gpukill {

// What to do so that every process's open files can be read, for a parenthesis after
// "GPU holders among them are not shown": "run as root (sudo gpukill ...)", "grant
// CAP_SYS_PTRACE (...)", or why no grant helps.
std::string unreadable_processes_advice(const ProcessAccessFacts& facts);

// The same facts about gpukill's view, when its own PID namespace hides the host's
// processes; empty when it sees the host's (or --procfs names another /proc).
std::optional<std::string> pid_namespace_advice(const ProcessAccessFacts& facts);

// Reads this process's status (always the running kernel's /proc/self) and the status
// of at most 3 of `denied` under roots.procfs. A file that cannot be read leaves its
// fact unknown.
ProcessAccessFacts read_process_access_facts(const HostRoots& roots,
                                             const std::vector<pid_t>& denied);

}  // namespace gpukill

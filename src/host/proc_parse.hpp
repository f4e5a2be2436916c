// Pure parsers for the kernel's /proc text formats. No system calls: each takes
// the file's text and returns values, so they are tested on fixture text.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/device_node.hpp"
#include "model/process.hpp"
#include "model/result.hpp"

namespace gpukill {

// /proc/PID/stat. comm may hold spaces and parentheses: it ends at the LAST ')'.
struct ProcStat {
    pid_t pid = 0;
    std::string comm;
    char state = '?';
    pid_t ppid = 0;
    pid_t pgid = 0;
    pid_t sid = 0;
    unsigned flags = 0;                  // field 9; PF_KTHREAD = 0x00200000
    std::uint64_t start_time_ticks = 0;  // field 22, kept exactly
};
Result<ProcStat> parse_proc_stat(std::string_view text);

// /proc/PID/status: the fields gpukill needs.
struct ProcStatus {
    std::optional<std::string> name;
    std::optional<uid_t> real_uid;       // first number of "Uid:"
    std::optional<uid_t> effective_uid;  // second number of "Uid:"
    std::optional<pid_t> ppid;
    std::optional<pid_t> tgid;  // "Tgid:": the process a thread belongs to (its own PID for
                                // a process's main thread)
    std::vector<pid_t> nspid;   // "NSpid:" (host PID first); empty on old kernels
};
ProcStatus parse_proc_status(std::string_view text);

// /proc/PID/cmdline: NUL-separated arguments; a trailing NUL does not add an empty one.
std::vector<std::string> parse_proc_cmdline(std::string_view text);

// /proc/PID/cgroup (v1 or v2): the container the process runs in, if any, as read from
// the cgroup names runtimes and the kubelet create (paths as seen from the host).
//   runtime  who runs the container, named by its scope prefix:
//            "docker"     docker-<id>.scope, /docker/<id>
//            "containerd" cri-containerd-<id>.scope
//            "cri-o"      crio-<id>.scope, crio-<id>
//            "podman"     libpod-<id>.scope (also below it, e.g. ".../container"), libpod-<id>
//            "kubernetes" when the path shows a pod but does not name the runtime: the
//                         cgroupfs driver's /kubepods/<qos>/pod<uid>/<id>, or a process in a
//                         pod's slice outside any container (CRI-O's conmon).
//   id       the 64-hex-digit container id; "" when only the pod is known.
//   pod_uid  set whenever the path is under kubepods, with dashes: the systemd driver's
//            kubepods[-<qos>]-pod<uid with '_'>.slice and the cgroupfs driver's pod<uid>.
//            Static pods' 32-hex-digit hash UIDs are accepted too.
// So Kubernetes is recognised by pod_uid, and runtime always answers "who runs it".
// Monitors are not containers: crio-conmon-<id>.scope and libpod-conmon-<id>.scope give no
// container. When containers nest (a kind node is itself a docker container), the
// innermost one is the process's; a pod seen below a container drops the outer one.
// cgroup v1 has one line per hierarchy: the first line naming a container id wins.
// A v2 path marked " (deleted)" (cgroup removed, process still in it) still counts.
// Anything else (user.slice, init.scope, "/", docker.service, a bare 64-hex directory
// outside docker/ or a pod) is no container: empty.
std::optional<ContainerInfo> parse_proc_cgroup(std::string_view text);

// /proc/PID/cgroup (v1 or v2): the Slurm job the process runs in. A "job_<digits>"
// segment counts only below a segment that starts with "slurm" (slurm, slurm_<node>,
// slurmstepd.scope), so a directory that happens to be called job_1 elsewhere is not a
// job; "uid_<digits>" above it gives the uid, "step_<name>" below it the step. The first
// line naming a job wins (v1 lists one line per hierarchy).
std::optional<SlurmJobInfo> parse_slurm_job(std::string_view cgroup_text);

// "/usr/bin/python3 (deleted)" -> {"/usr/bin/python3", true}
struct ExeLink {
    std::string path;
    bool deleted = false;
};
ExeLink parse_exe_link(std::string_view link_target);

}  // namespace gpukill

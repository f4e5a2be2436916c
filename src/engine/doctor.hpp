// What `gpukill doctor` finds out about this host: which backends loaded and why not,
// driver versions, whether other users' processes are visible, device nodes, holder
// tracking, the state directory; and what to do about each gap. The facts are gathered
// once (effects, gather_doctor_facts); the diagnosis over them is pure and tested.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/engine.hpp"
#include "model/backend_status.hpp"
#include "model/process_access_facts.hpp"

namespace gpukill::engine {

struct DoctorFacts {
    std::vector<BackendStatus> backends;
    uid_t euid = 0;
    HostRoots roots;
    bool procfs_readable = false;
    std::size_t processes_scanned = 0;
    std::size_t processes_denied = 0;
    // Who is asking, and what the refused processes hold: the advice names what is
    // missing (root, a capability, the host's PID namespace), not always "run as root".
    ProcessAccessFacts access;
    std::size_t nvidia_device_nodes = 0;  // devfs/nvidia[0-9]+
    std::size_t dri_device_nodes = 0;     // devfs/dri/card*, renderD*
    bool kfd_present = false;
    std::size_t gpus_found = 0;
    std::string state_dir;
    bool state_dir_writable = false;
    // Why the agent's event-driven holder tracker cannot start here; empty when it can.
    std::string holder_tracking_unavailable;
    // When tracking is available: the process connector's receive buffer as granted, and
    // whether uninteresting events are dropped in the kernel (what keeps a busy node's
    // events from overflowing it).
    std::size_t holder_events_buffer_bytes = 0;
    bool holder_events_filtered = false;
    // What a Kubernetes node's runtimes leave under the run directory (roots.rundir):
    // their CRI socket, and the directory of their containers' bundles, which is where
    // gpukill reads images and pods (host/cri_bundle.hpp).
    struct CriRuntimeFacts {
        std::string name;        // "containerd", "cri-o"
        bool socket = false;     // its CRI socket is there
        bool bundles = false;    // its bundle directory opens
        std::string bundle_dir;  // where that directory is looked for
        std::string socket_path;
    };
    std::vector<CriRuntimeFacts> cri_runtimes;
};

enum class CheckLevel { ok, info, warn, fail };
const char* to_string(CheckLevel level);

struct DoctorCheck {
    std::string name;
    CheckLevel level = CheckLevel::ok;
    std::string detail;
    std::optional<std::string> advice;
};

std::vector<DoctorCheck> diagnose(const DoctorFacts& facts);

// Opens every backend itself (one that fails to load is a finding, not an error) and
// sweeps the host once.
DoctorFacts gather_doctor_facts(const EngineConfig& config);

// {"schema_version":1,"checks":[{"name","level","detail","advice"}]}.
nlohmann::json doctor_json(const std::vector<DoctorCheck>& checks);

// Whether any check failed (the command then exits 1).
bool any_check_failed(const std::vector<DoctorCheck>& checks);

}  // namespace gpukill::engine

// `gpukill doctor`: which backends loaded and why not, driver versions, whether
// other users' processes are visible, and what to do about each gap. Facts are
// gathered once (effects); the diagnosis over them is pure and tested.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "cli/global_options.hpp"
#include "host/process_access.hpp"
#include "model/backend_status.hpp"

namespace gpukill::cli {

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

DoctorFacts gather_doctor_facts(const GlobalOptions& global);

int run_doctor(const GlobalOptions& global, bool json);

}  // namespace gpukill::cli

// What `gpukill reset` will do, decided before anything happens: which GPUs, by which
// vendor path, what holds them, and whether the reset is refused, blocked by holders,
// preceded by reclaiming them (--force), or done straight away. Pure: built from a
// Snapshot and facts gathered beforehand (reset_facts.hpp); no system calls.
//
// The preflight mirrors what the vendors require:
//   - a reset path: NVIDIA through `nvidia-smi -r` (there is no public NVML reset), AMD
//     (amdgpu) through the kernel's debugfs `amdgpu_gpu_recover`; Intel and other drivers
//     have none gpukill can trigger (unbind and rebind the driver, or reboot);
//   - privilege: root or CAP_SYS_ADMIN, as both paths require;
//   - GPUs that reset together: pre-Ampere NVIDIA GPUs joined by NVLink (directly or
//     through an NVSwitch), and AMD GPUs of one XGMI hive, must all be in the request;
//   - no process may hold a GPU being reset (nvidia-smi refuses; amdgpu would pull the
//     memory from under them): with holders, refuse unless --force reclaims them first;
//   - MIG, persistence mode and a lost GPU are reported as notes: the vendor tool decides.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/gpu.hpp"
#include "model/snapshot.hpp"

namespace gpukill::reclaim {

enum class ResetMethod {
    nvidia_smi,      // nvidia-smi -r -i <bus id>[,<bus id>...]
    amdgpu_debugfs,  // read DEBUGFS/dri/<card minor>/amdgpu_gpu_recover
};
const char* to_string(ResetMethod method);

// How an AMD GPU would be recovered, found on the host (reset_facts.hpp).
struct AmdRecovery {
    std::optional<std::string> path;  // the amdgpu_gpu_recover file, when present
    std::string why_not;              // when absent: debugfs not mounted, no such file...
};

// Facts about the host the plan depends on, gathered before planning.
struct ResetFacts {
    bool privileged = false;                     // effective uid 0 or CAP_SYS_ADMIN
    std::optional<std::string> nvidia_smi;       // the nvidia-smi to run, when found
    std::string nvidia_smi_missing;              // why none was found
    std::map<unsigned, std::string> drivers;     // GPU index -> kernel driver (sysfs)
    std::map<unsigned, AmdRecovery> amd;         // AMD GPU index -> its recovery path
    std::map<unsigned, std::string> xgmi_hives;  // AMD GPU index -> XGMI hive id (non-zero)
};

struct ResetRequest {
    std::vector<unsigned> gpus;  // --gpu (one or more, comma-separated), resolved
    bool all = false;            // --all: every GPU; those without a reset path are skipped
    bool force = false;          // reclaim holders first
};

// A process holding one of the GPUs to reset.
struct ResetHolder {
    pid_t pid = 0;
    std::uint64_t start_time_ticks = 0;
    std::string name;
    std::string user;
    std::optional<uid_t> uid;
    std::vector<unsigned> gpus;                 // which of the GPUs being reset it holds
    std::optional<std::uint64_t> memory_bytes;  // driver-reported, summed over those GPUs
    bool driver_listed = false;                 // in a driver's process list (else by file)
};

struct ResetGpu {
    unsigned index = 0;
    Vendor vendor = Vendor::other;
    std::optional<std::string> name;
    std::optional<std::string> uuid;
    std::optional<std::string> pci_bus_id;
    ResetMethod method = ResetMethod::nvidia_smi;
    std::optional<std::string> amdgpu_recover_path;  // for amdgpu_debugfs
    std::optional<std::uint64_t> memory_used_before_bytes;
    std::optional<std::uint64_t> memory_total_bytes;
    std::optional<bool> persistence_mode;
    std::optional<bool> mig_mode;
    bool lost = false;
    std::vector<unsigned> reset_with;  // every GPU of its reset group, itself included
    std::vector<std::string> notes;    // what the user should know before it happens
};

struct SkippedGpu {
    unsigned index = 0;
    std::optional<std::string> name;
    std::string why;
};

// Why a plan is held or refused; the command maps each to its exit code (README).
enum class ResetBlock {
    none,
    unsupported,       // no reset path for a GPU (vendor, driver, missing tool or debugfs)
    permission,        // neither root nor CAP_SYS_ADMIN
    incomplete_group,  // a GPU resets together with GPUs that were not requested
    holders,           // processes hold the GPUs and --force was not given
};
const char* to_string(ResetBlock block);

enum class ResetDecision {
    reset,               // nothing holds the GPUs: reset them
    reclaim_then_reset,  // --force: stop the holders through the reclaim engine, then reset
    held,                // processes hold them and --force was not given (or cannot help)
    refused,             // a preflight check failed: nothing will be done
};
const char* to_string(ResetDecision decision);

struct ResetPlan {
    std::vector<ResetGpu> gpus;        // to reset, in index order
    std::vector<SkippedGpu> skipped;   // --all only: GPUs without a reset path
    std::vector<ResetHolder> holders;  // by PID
    // One vendor invocation each, in order: a group resets together (NVLink, XGMI).
    std::vector<std::vector<unsigned>> groups;
    ResetDecision decision = ResetDecision::refused;
    ResetBlock block = ResetBlock::none;  // for held and refused
    std::string why;                      // held/refused: one line
    std::optional<std::string> advice;    // what to do about it
    bool force = false;
};

// Checks, in order (the first that fails decides): each GPU has a reset path
// (unsupported; with --all such GPUs are skipped, and it is unsupported only when none
// is left); privilege; the request holds every GPU its GPUs reset together with
// (incomplete_group); holders (held, unless --force: reclaim_then_reset). An empty
// request (no GPU on the host) is a `reset` plan with nothing to do.
ResetPlan build_reset_plan(const Snapshot& snapshot, const ResetRequest& request,
                           const ResetFacts& facts);

// Every process of `snapshot` tied to any of `gpus`, by PID, with what it holds of them.
// Pure.
std::vector<ResetHolder> holders_of(const Snapshot& snapshot, const std::set<unsigned>& gpus);

// The GPUs `gpu` must be reset together with (itself included, ascending): the
// connected component over pre-Ampere NVLinks (a link to a non-GPU device such as an
// NVSwitch joins every GPU linked to it) and XGMI hives. Pure.
std::vector<unsigned> reset_group_of(const Snapshot& snapshot, const ResetFacts& facts,
                                     unsigned gpu);

}  // namespace gpukill::reclaim

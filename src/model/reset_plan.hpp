// What `gpukill reset` will do, decided before anything happens (built by
// reclaim/reset_plan.hpp): which GPUs, by which vendor path, what holds them, and the
// decision. Pure data, reported by every interface.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/gpu.hpp"

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

}  // namespace gpukill::reclaim

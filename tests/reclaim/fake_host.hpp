// Hand-built hosts for the pure selection and verification tests: a process table and
// the snapshot discover() would have produced from it, without any system call.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/snapshot.hpp"
#include "reclaim/select.hpp"

namespace gpukill::reclaim_test {

using reclaim::default_protected_list;
using reclaim::ProcessTable;
using reclaim::SafetyContext;
using reclaim::Selectors;

inline constexpr uid_t kMe = 1000;   // the caller's euid in these tests
inline constexpr pid_t kSelf = 100;  // gpukill
inline constexpr pid_t kShell = 90;  // its parent
inline constexpr std::uint64_t kGiB = 1ULL << 30;

// A host with `gpu_count` GPUs. Processes are added to the table; holds() ties them to
// GPUs; snapshot() builds what merge_snapshot would: driver lists, used memory,
// unattributed memory and the orphaned flag.
class FakeHost {
  public:
    explicit FakeHost(unsigned gpu_count = 2) {
        for (unsigned i = 0; i < gpu_count; ++i) used_[i] = 0;
        add(1, 0, "systemd", 0, "root").sid = 1;
        add(kShell, 1, "bash");
        add(kSelf, kShell, "gpukill").pgid = kSelf;
    }

    // A process owned by `uid`, in its own process group and the login session.
    ProcessInfo& add(pid_t pid, pid_t ppid, const std::string& comm, uid_t uid = kMe,
                     const std::string& user = "alice") {
        ProcessInfo& info = table_[pid];
        info.pid = pid;
        info.ppid = ppid;
        info.pgid = pid;
        info.sid = kShell;  // the login session; a daemon sets sid = pid
        info.uid = uid;
        info.user = user;
        info.comm = comm;
        info.cmdline = {comm};
        info.exe = "/usr/bin/" + comm;
        info.start_time_ticks = 5000 + static_cast<std::uint64_t>(pid);
        info.state = 'S';
        return info;
    }

    // `pid` holds `gpu`: listed by the driver with `driver_bytes` (nullopt: listed without
    // a memory figure), or by its device file only when `listed` is false.
    void holds(pid_t pid, unsigned gpu, std::optional<std::uint64_t> driver_bytes,
               bool listed = true) {
        ProcessGpuUse use{.gpu_index = gpu};
        use.seen_by.device_file = true;
        use.seen_by.driver = listed;
        if (listed) use.memory_bytes = driver_bytes;
        uses_[pid].push_back(use);
        if (listed && driver_bytes) used_[gpu] += *driver_bytes;
    }

    // `pid` holds /dev/kfd and nothing says which AMD GPU it uses: tied to `gpu` as one it
    // may use (GpuAttribution::any_amd_gpu), by device file only.
    void may_hold(pid_t pid, unsigned gpu) {
        ProcessGpuUse use{.gpu_index = gpu, .attribution = GpuAttribution::any_amd_gpu};
        use.seen_by.device_file = true;
        uses_[pid].push_back(use);
    }

    // `pid` holds `gpu`'s device file as a monitoring client does: no context, no memory,
    // role observer (discovery/process_role.hpp).
    void observes(pid_t pid, unsigned gpu) {
        holds(pid, gpu, std::nullopt, false);
        observers_.insert(pid);
    }

    // Memory used on `gpu` beyond what the driver's list accounts for (leaks, workers).
    void add_unattributed(unsigned gpu, std::uint64_t bytes) { used_[gpu] += bytes; }

    // The driver's process list for `gpu` cannot be read.
    void hide_driver_list(unsigned gpu) { hidden_lists_.push_back(gpu); }

    ProcessInfo& info(pid_t pid) { return table_.at(pid); }

    ProcessTable table() const {
        ProcessTable out;
        for (const auto& [pid, info] : table_) out.push_back(info);
        return out;
    }

    Snapshot snapshot() const {
        Snapshot snapshot;
        for (const auto& [index, used] : used_) {
            Gpu gpu{.index = index};
            gpu.reading.memory_used_bytes = used;
            gpu.reading.processes.emplace();
            std::uint64_t attributed = 0;
            bool known = true;
            for (const auto& [pid, uses] : uses_) {
                for (const ProcessGpuUse& use : uses) {
                    if (use.gpu_index != index || !use.seen_by.driver) continue;
                    gpu.reading.processes->push_back(
                        DriverProcess{.pid = pid, .memory_bytes = use.memory_bytes});
                    if (use.memory_bytes) {
                        attributed += *use.memory_bytes;
                    } else {
                        known = false;
                    }
                }
            }
            if (known) gpu.unattributed_memory_bytes = used - attributed;
            for (unsigned hidden : hidden_lists_) {
                if (hidden == index) {
                    gpu.reading.processes.reset();
                    gpu.unattributed_memory_bytes.reset();
                }
            }
            snapshot.gpus.push_back(gpu);
        }
        for (const auto& [pid, uses] : uses_) {
            SnapshotProcess process;
            auto found = table_.find(pid);
            if (found != table_.end()) {
                process.info = found->second;
            } else {
                process.info.pid = pid;
                process.info_complete = false;
            }
            process.gpus = uses;
            process.orphaned = looks_orphaned(process.info);
            if (observers_.contains(pid)) process.role = ProcessRole::observer;
            snapshot.processes.push_back(process);
        }
        return snapshot;
    }

  private:
    std::map<pid_t, ProcessInfo> table_;
    std::map<pid_t, std::vector<ProcessGpuUse>> uses_;
    std::map<unsigned, std::uint64_t> used_;
    std::vector<unsigned> hidden_lists_;
    std::set<pid_t> observers_;
};

inline SafetyContext test_safety() {
    SafetyContext safety;
    safety.self = kSelf;
    safety.self_pgid = kSelf;
    safety.ancestors = {kShell, 1};
    safety.euid = kMe;
    safety.can_signal_any_user = false;
    safety.pid_max = 4194304;
    safety.protected_list = default_protected_list();
    return safety;
}

// Named PIDs, whether or not they hold a GPU (--any-process): most fake processes of
// these tests hold none, and the safety rules apply to them the same.
inline Selectors named(std::vector<std::string> pids) {
    Selectors selectors;
    selectors.pid_arguments = std::move(pids);
    selectors.any_process = true;
    return selectors;
}

// Named PIDs as `gpukill kill --pid` takes them by default: each must hold a GPU or
// have a descendant that does.
inline Selectors named_holders(std::vector<std::string> pids) {
    Selectors selectors = named(std::move(pids));
    selectors.any_process = false;
    return selectors;
}

}  // namespace gpukill::reclaim_test

// Hand-built hosts for the pure selection and verification tests: a process table, the
// backends' readings and the fd sweep's holders, merged into a snapshot by discovery's own
// merge_snapshot and mark_orphans, exactly as discover() does: no system call, and no
// second copy of the merge to drift from the real one.
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "discovery/merge.hpp"
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

// A host with `gpu_count` GPUs of one vendor, at PCI buses 01, 02, ... in index order.
// Processes are added to the table; holds() ties them to GPUs through a device node and
// (when listed) the driver's list; snapshot() merges it all.
class FakeHost {
  public:
    explicit FakeHost(unsigned gpu_count = 2, Vendor vendor = Vendor::nvidia) : vendor_(vendor) {
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

    // `pid` holds `gpu`'s device node as a CUDA (or ROCm) client does and, when `listed`,
    // is in the driver's list with `driver_bytes` (nullopt: listed without a memory
    // figure).
    void holds(pid_t pid, unsigned gpu, std::optional<std::uint64_t> driver_bytes,
               bool listed = true) {
        std::vector<DeviceNode>& nodes = nodes_[pid];
        nodes.push_back(gpu_node(gpu));
        const bool has_uvm = std::any_of(nodes.begin(), nodes.end(), [](const DeviceNode& n) {
            return n.kind == DeviceNodeKind::nvidia_uvm;
        });
        if (vendor_ == Vendor::nvidia && !has_uvm) {
            nodes.push_back(
                DeviceNode{.kind = DeviceNodeKind::nvidia_uvm, .relative_path = "nvidia-uvm"});
        }
        if (!listed) return;
        listed_[gpu].push_back(DriverProcess{.pid = pid, .memory_bytes = driver_bytes});
        if (driver_bytes) used_[gpu] += *driver_bytes;
    }

    // `pid` holds `gpu`'s device files as a monitoring client does (the control node and
    // the GPU's node, no unified-memory node, in no driver list): the merge makes it an
    // observer (discovery/process_role.hpp).
    void observes(pid_t pid, unsigned gpu) {
        std::vector<DeviceNode>& nodes = nodes_[pid];
        nodes.push_back(
            DeviceNode{.kind = DeviceNodeKind::nvidia_ctl, .relative_path = "nvidiactl"});
        nodes.push_back(gpu_node(gpu));
    }

    // `pid` holds /dev/kfd and nothing says which AMD GPU it uses: the merge ties it to
    // every AMD GPU as one it may use (GpuAttribution::any_amd_gpu). An AMD host's GPU.
    void may_hold(pid_t pid, unsigned gpu) {
        if (vendor_ != Vendor::amd || !used_.contains(gpu)) {
            throw std::logic_error("may_hold needs an AMD GPU " + std::to_string(gpu));
        }
        std::vector<DeviceNode>& nodes = nodes_[pid];
        const bool has_kfd = std::any_of(nodes.begin(), nodes.end(), [](const DeviceNode& n) {
            return n.kind == DeviceNodeKind::kfd;
        });
        if (!has_kfd) {
            nodes.push_back(DeviceNode{.kind = DeviceNodeKind::kfd, .relative_path = "kfd"});
        }
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
        MergeInputs inputs;
        for (const auto& [index, used] : used_) {
            GpuReading reading;
            reading.vendor = vendor_;
            reading.backend = vendor_ == Vendor::nvidia ? "nvml" : "drm";
            reading.backend_index = index;
            reading.pci_bus_id = bus_id(index);
            if (vendor_ == Vendor::nvidia) reading.nvidia_minor = index;
            reading.memory_used_bytes = used;
            reading.process_list_accounts_memory = true;
            if (std::find(hidden_lists_.begin(), hidden_lists_.end(), index) ==
                hidden_lists_.end()) {
                auto listed = listed_.find(index);
                reading.processes =
                    listed == listed_.end() ? std::vector<DriverProcess>{} : listed->second;
            }
            inputs.readings.push_back(std::move(reading));
        }
        for (const auto& [pid, nodes] : nodes_) {
            DeviceHolder holder{.pid = pid, .nodes = nodes};
            if (auto known = table_.find(pid); known != table_.end()) {
                holder.start_time_ticks = known->second.start_time_ticks;
            }
            inputs.holders.push_back(std::move(holder));
        }
        for (const auto& [pid, info] : table_) inputs.processes.push_back(info);
        Snapshot snapshot = merge_snapshot(std::move(inputs));
        mark_orphans(snapshot);
        return snapshot;
    }

  private:
    static std::string bus_id(unsigned gpu) { return fmt::format("0000:{:02x}:00.0", gpu + 1); }

    DeviceNode gpu_node(unsigned gpu) const {
        if (vendor_ == Vendor::nvidia) {
            return DeviceNode{.kind = DeviceNodeKind::nvidia_gpu,
                              .relative_path = "nvidia" + std::to_string(gpu),
                              .nvidia_minor = gpu};
        }
        return DeviceNode{.kind = DeviceNodeKind::dri_render,
                          .relative_path = "dri/renderD" + std::to_string(128 + gpu),
                          .dri_minor = 128 + gpu,
                          .pci_bus_id = bus_id(gpu)};
    }

    Vendor vendor_;
    std::map<pid_t, ProcessInfo> table_;
    std::map<pid_t, std::vector<DeviceNode>> nodes_;
    std::map<unsigned, std::vector<DriverProcess>> listed_;
    std::map<unsigned, std::uint64_t> used_;
    std::vector<unsigned> hidden_lists_;
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

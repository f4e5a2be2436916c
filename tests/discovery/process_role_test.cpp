// Observers and workloads, decided from what each holder holds and whether the driver
// lists it (discovery/process_role.hpp), through the merge every snapshot is built by.
#include "discovery/process_role.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "discovery/merge.hpp"
#include "model/snapshot_json.hpp"
#include "model/snapshot_json_read.hpp"

namespace gpukill {
namespace process_role_test {
namespace {

constexpr std::uint64_t GiB = 1ULL << 30;

GpuReading nvidia_gpu(unsigned index, std::vector<DriverProcess> processes,
                      std::uint64_t used = 0) {
    GpuReading r;
    r.vendor = Vendor::nvidia;
    r.backend = "nvml";
    r.backend_index = index;
    r.pci_bus_id = index == 0 ? "0000:18:00.0" : "0000:2a:00.0";
    r.nvidia_minor = index;
    r.memory_total_bytes = 80 * GiB;
    r.memory_used_bytes = used;
    r.processes = std::move(processes);
    return r;
}

DeviceNode ctl() {
    return {.kind = DeviceNodeKind::nvidia_ctl, .relative_path = "nvidiactl"};
}
DeviceNode uvm() {
    return {.kind = DeviceNodeKind::nvidia_uvm, .relative_path = "nvidia-uvm"};
}
DeviceNode gpu_node(unsigned minor) {
    return {.kind = DeviceNodeKind::nvidia_gpu,
            .relative_path = "nvidia" + std::to_string(minor),
            .nvidia_minor = minor};
}

ProcessInfo info(pid_t pid, const char* comm) {
    ProcessInfo p;
    p.pid = pid;
    p.ppid = 1;
    p.sid = pid;
    p.comm = comm;
    p.user = "root";
    p.start_time_ticks = 500;
    return p;
}

const SnapshotProcess& process(const Snapshot& s, pid_t pid) {
    for (const SnapshotProcess& p : s.processes) {
        if (p.info.pid == pid) return p;
    }
    throw std::runtime_error("no such process");
}

// Two GPUs: a trainer (PID 100) with a context on GPU 0 and its DataLoader worker
// (PID 101: ctl, uvm and the GPU node, inherited; not listed); nvidia-persistenced-like
// (PID 200) and DCGM-like (PID 201) NVML clients holding ctl and both GPU nodes.
MergeInputs busy_node() {
    MergeInputs in;
    in.readings.push_back(nvidia_gpu(0, {{100, 8 * GiB}}, 8 * GiB));
    in.readings.push_back(nvidia_gpu(1, {}));
    in.holders.push_back({.pid = 100, .nodes = {ctl(), uvm(), gpu_node(0), gpu_node(1)}});
    in.holders.push_back({.pid = 101, .nodes = {ctl(), uvm(), gpu_node(0), gpu_node(1)}});
    in.holders.push_back({.pid = 200, .nodes = {ctl(), gpu_node(0), gpu_node(1)}});
    in.holders.push_back({.pid = 201, .nodes = {ctl(), gpu_node(0), gpu_node(1)}});
    for (pid_t pid : {100, 101, 200, 201}) in.processes.push_back(info(pid, "p"));
    return in;
}

TEST(ProcessRole, NvmlClientsWithoutAContextAreObservers) {
    const Snapshot s = merge_snapshot(busy_node());
    EXPECT_EQ(process(s, 200).role, ProcessRole::observer);
    EXPECT_EQ(process(s, 201).role, ProcessRole::observer);
}

TEST(ProcessRole, ACudaClientIsAWorkloadWhetherOrNotTheDriverListsIt) {
    const Snapshot s = merge_snapshot(busy_node());
    EXPECT_EQ(process(s, 100).role, ProcessRole::workload);  // the trainer: a context
    // The worker holds /dev/nvidia-uvm: the CUDA driver's node, and the trainer's memory
    // once the trainer is gone. Never an observer, though no driver list names it.
    EXPECT_EQ(process(s, 101).role, ProcessRole::workload);
}

TEST(ProcessRole, GpusCountTheirWorkloadsAndTheirObserversApart) {
    const Snapshot s = merge_snapshot(busy_node());
    EXPECT_EQ(s.gpus[0].process_count, 2u);
    EXPECT_EQ(s.gpus[0].observer_count, 2u);
    EXPECT_EQ(s.gpus[1].process_count, 2u);  // the trainer and its worker opened GPU 1 too
    EXPECT_EQ(s.gpus[1].observer_count, 2u);
}

TEST(ProcessRole, AnIdleNodeWithOnlyObserversHasNoProcessOnItsGpus) {
    MergeInputs in;
    in.readings.push_back(nvidia_gpu(0, {}));
    in.holders.push_back({.pid = 200, .nodes = {ctl(), gpu_node(0)}});
    in.holders.push_back({.pid = 300, .nodes = {ctl()}});  // the control node alone
    in.processes.push_back(info(200, "nv-hostengine"));
    in.processes.push_back(info(300, "nvidia-smi"));
    const Snapshot s = merge_snapshot(std::move(in));
    EXPECT_EQ(s.gpus[0].process_count, 0u);
    EXPECT_EQ(s.gpus[0].observer_count, 1u);
    EXPECT_EQ(process(s, 300).role, ProcessRole::observer);
}

TEST(ProcessRole, AHolderOfAGpuWhoseDriverListIsUnknownIsAWorkload) {
    MergeInputs in;
    GpuReading unknown_list = nvidia_gpu(0, {});
    unknown_list.processes.reset();  // NVML could not say who has a context on it
    in.readings.push_back(std::move(unknown_list));
    in.holders.push_back({.pid = 200, .nodes = {ctl(), gpu_node(0)}});
    in.processes.push_back(info(200, "nv-hostengine"));
    const Snapshot s = merge_snapshot(std::move(in));
    EXPECT_EQ(process(s, 200).role, ProcessRole::workload);
}

TEST(ProcessRole, TheNameDecidesNothing) {
    MergeInputs in = busy_node();
    // A CUDA worker named like the persistence daemon is still a workload, and an NVML
    // client named like a trainer is still an observer.
    in.processes[1].comm = "nvidia-persiste";
    in.processes[2].comm = "python";
    const Snapshot s = merge_snapshot(std::move(in));
    EXPECT_EQ(process(s, 101).role, ProcessRole::workload);
    EXPECT_EQ(process(s, 200).role, ProcessRole::observer);
}

TEST(ProcessRole, DrmHoldersAreWorkloads) {
    MergeInputs in;
    GpuReading amd;
    amd.vendor = Vendor::amd;
    amd.backend = "drm";
    amd.pci_bus_id = "0000:c1:00.0";
    amd.processes = std::vector<DriverProcess>{};
    amd.process_list_accounts_memory = false;
    in.readings.push_back(std::move(amd));
    in.holders.push_back({.pid = 400,
                          .nodes = {DeviceNode{.kind = DeviceNodeKind::dri_render,
                                               .relative_path = "dri/renderD128",
                                               .dri_minor = 128,
                                               .pci_bus_id = "0000:c1:00.0"}}});
    in.processes.push_back(info(400, "nvtop"));
    const Snapshot s = merge_snapshot(std::move(in));
    EXPECT_EQ(process(s, 400).role, ProcessRole::workload);
}

TEST(ProcessRole, TheJsonDocumentCarriesTheRoleBothWays) {
    const Snapshot s = merge_snapshot(busy_node());
    const nlohmann::ordered_json doc = to_json(s);
    bool saw_observer = false;
    for (const auto& p : doc["processes"]) {
        const std::string role = p["role"];
        EXPECT_EQ(role, p["pid"] == 200 || p["pid"] == 201 ? "observer" : "workload");
        saw_observer |= role == "observer";
    }
    EXPECT_TRUE(saw_observer);
    EXPECT_EQ(doc["gpus"][0]["observer_count"], 2);
    auto read = snapshot_from_json(doc.dump());
    ASSERT_TRUE(read) << read.error().what;
    EXPECT_EQ(process(*read, 200).role, ProcessRole::observer);
    EXPECT_EQ(process(*read, 101).role, ProcessRole::workload);
    EXPECT_EQ(read->gpus[0].observer_count, 2u);
}

}  // namespace
}  // namespace process_role_test
}  // namespace gpukill

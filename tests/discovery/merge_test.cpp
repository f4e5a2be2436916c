#include "discovery/merge.hpp"

#include <gtest/gtest.h>

namespace gpukill {
namespace {

constexpr std::uint64_t GiB = 1ULL << 30;

GpuReading nvidia_gpu(unsigned backend_index, const char* bus_id, unsigned minor,
                      std::uint64_t used, std::vector<DriverProcess> processes) {
    GpuReading r;
    r.vendor = Vendor::nvidia;
    r.backend = "nvml";
    r.backend_index = backend_index;
    r.name = "NVIDIA H100 80GB HBM3";
    r.pci_bus_id = bus_id;
    r.nvidia_minor = minor;
    r.memory_total_bytes = 80 * GiB;
    r.memory_used_bytes = used;
    r.processes = std::move(processes);
    return r;
}

// A CUDA process's nodes: the control and UVM nodes and its GPUs' (forked workers inherit
// the same).
DeviceHolder holder(pid_t pid, std::vector<unsigned> minors) {
    DeviceHolder h{.pid = pid};
    h.nodes.push_back(DeviceNode{.kind = DeviceNodeKind::nvidia_ctl, .relative_path = "nvidiactl"});
    h.nodes.push_back(
        DeviceNode{.kind = DeviceNodeKind::nvidia_uvm, .relative_path = "nvidia-uvm"});
    for (unsigned minor : minors) {
        h.nodes.push_back(DeviceNode{.kind = DeviceNodeKind::nvidia_gpu,
                                     .relative_path = "nvidia" + std::to_string(minor),
                                     .nvidia_minor = minor});
    }
    return h;
}

ProcessInfo info(pid_t pid, pid_t ppid, const char* comm) {
    ProcessInfo p;
    p.pid = pid;
    p.ppid = ppid;
    p.comm = comm;
    p.user = "alice";
    p.start_time_ticks = 1000u + static_cast<unsigned>(pid);
    return p;
}

const ProcessGpuUse* use_of(const Snapshot& s, pid_t pid, unsigned gpu) {
    for (const auto& p : s.processes) {
        if (p.info.pid != pid) continue;
        for (const auto& u : p.gpus) {
            if (u.gpu_index == gpu) return &u;
        }
    }
    return nullptr;
}

TEST(Merge, GpusAreNumberedByPciAddressWhateverTheInputOrder) {
    MergeInputs in;
    in.readings.push_back(nvidia_gpu(1, "0000:2a:00.0", 1, 0, {}));
    in.readings.push_back(nvidia_gpu(0, "0000:18:00.0", 0, 0, {}));
    Snapshot s = merge_snapshot(std::move(in));
    ASSERT_EQ(s.gpus.size(), 2u);
    EXPECT_EQ(s.gpus[0].reading.pci_bus_id, "0000:18:00.0");
    EXPECT_EQ(s.gpus[0].index, 0u);
    EXPECT_EQ(s.gpus[1].reading.pci_bus_id, "0000:2a:00.0");
}

TEST(Merge, AProcessSeenByDriverAndDeviceFileIsOneEntryWithBothSources) {
    MergeInputs in;
    in.readings.push_back(nvidia_gpu(0, "0000:18:00.0", 0, 8 * GiB, {{100, 8 * GiB}}));
    in.holders.push_back(holder(100, {0}));
    in.processes.push_back(info(100, 50, "python"));
    Snapshot s = merge_snapshot(std::move(in));
    ASSERT_EQ(s.processes.size(), 1u);
    const ProcessGpuUse* use = use_of(s, 100, 0);
    ASSERT_NE(use, nullptr);
    EXPECT_EQ(use->seen_by, (SeenBy{.driver = true, .device_file = true}));
    EXPECT_EQ(use->memory_bytes, 8 * GiB);
    EXPECT_EQ(s.gpus[0].unattributed_memory_bytes, 0u);
    EXPECT_EQ(s.gpus[0].process_count, 1u);
}

TEST(Merge, OrphanedWorkersAreSeenByDeviceFileAndTheirMemoryIsUnattributed) {
    // The parent died; its two workers still hold /dev/nvidia0 and 4 GiB stays used,
    // while the driver lists nobody.
    MergeInputs in;
    in.readings.push_back(nvidia_gpu(0, "0000:18:00.0", 0, 4 * GiB, {}));
    in.holders.push_back(holder(201, {0}));
    in.holders.push_back(holder(202, {0}));
    in.processes.push_back(info(201, 1, "python"));
    in.processes.push_back(info(202, 1, "python"));
    Snapshot s = merge_snapshot(std::move(in));
    EXPECT_EQ(s.gpus[0].unattributed_memory_bytes, 4 * GiB);
    EXPECT_EQ(s.gpus[0].process_count, 2u);
    for (pid_t pid : {201, 202}) {
        const ProcessGpuUse* use = use_of(s, pid, 0);
        ASSERT_NE(use, nullptr);
        EXPECT_EQ(use->seen_by, (SeenBy{.driver = false, .device_file = true}));
        EXPECT_FALSE(use->memory_bytes.has_value());
    }
}

TEST(Merge, LeakedMemoryWithNoHolderIsUnattributed) {
    MergeInputs in;
    in.readings.push_back(nvidia_gpu(0, "0000:18:00.0", 0, 2 * GiB, {}));
    Snapshot s = merge_snapshot(std::move(in));
    EXPECT_EQ(s.gpus[0].unattributed_memory_bytes, 2 * GiB);
    EXPECT_TRUE(s.processes.empty());
}

TEST(Merge, UnknownProcessMemoryMakesTheGapUnknown) {
    MergeInputs in;
    in.readings.push_back(nvidia_gpu(0, "0000:18:00.0", 0, 2 * GiB, {{300, std::nullopt}}));
    Snapshot s = merge_snapshot(std::move(in));
    EXPECT_FALSE(s.gpus[0].unattributed_memory_bytes.has_value());
}

TEST(Merge, AnUnreadableProcessListMakesTheGapUnknownNotZero) {
    MergeInputs in;
    GpuReading r = nvidia_gpu(0, "0000:18:00.0", 0, 2 * GiB, {});
    r.processes.reset();
    in.readings.push_back(r);
    Snapshot s = merge_snapshot(std::move(in));
    EXPECT_FALSE(s.gpus[0].unattributed_memory_bytes.has_value());
}

TEST(Merge, DeviceFilesMapToGpusByMinorNumberNotByPosition) {
    MergeInputs in;
    in.readings.push_back(nvidia_gpu(0, "0000:18:00.0", 3, 0, {}));
    in.readings.push_back(nvidia_gpu(1, "0000:2a:00.0", 1, 0, {}));
    in.holders.push_back(holder(400, {1}));
    Snapshot s = merge_snapshot(std::move(in));
    EXPECT_EQ(use_of(s, 400, 0), nullptr);
    EXPECT_NE(use_of(s, 400, 1), nullptr);
}

TEST(Merge, DriverNodeOnlyHoldersAreListedWithoutAGpu) {
    MergeInputs in;
    in.readings.push_back(nvidia_gpu(0, "0000:18:00.0", 0, 0, {}));
    in.holders.push_back(holder(500, {}));
    Snapshot s = merge_snapshot(std::move(in));
    ASSERT_EQ(s.processes.size(), 1u);
    EXPECT_TRUE(s.processes[0].gpus.empty());
    EXPECT_EQ(s.gpus[0].process_count, 0u);
}

TEST(Merge, DriDevicesMapByPciAddress) {
    MergeInputs in;
    in.readings.push_back(nvidia_gpu(0, "0000:18:00.0", 0, 0, {}));
    DeviceHolder h{.pid = 600};
    h.nodes.push_back(DeviceNode{.kind = DeviceNodeKind::dri_render,
                                 .relative_path = "dri/renderD128",
                                 .dri_minor = 128,
                                 .pci_bus_id = "0000:18:00.0"});
    in.holders.push_back(h);
    Snapshot s = merge_snapshot(std::move(in));
    EXPECT_NE(use_of(s, 600, 0), nullptr);
}

TEST(Merge, ADriverListedPidWithoutDetailsIsMarkedIncomplete) {
    MergeInputs in;
    in.readings.push_back(nvidia_gpu(0, "0000:18:00.0", 0, GiB, {{700, GiB}}));
    Snapshot s = merge_snapshot(std::move(in));
    ASSERT_EQ(s.processes.size(), 1u);
    EXPECT_FALSE(s.processes[0].info_complete);
    EXPECT_EQ(s.processes[0].info.pid, 700);
}

}  // namespace
}  // namespace gpukill

namespace gpukill {
namespace {

TEST(MergeIdentity, DetailsOfAReusedPidAreNotGivenToTheHolder) {
    MergeInputs in;
    GpuReading r;
    r.nvidia_minor = 0;
    r.processes = std::vector<DriverProcess>{};
    in.readings = {r};
    DeviceHolder h{.pid = 800, .start_time_ticks = 5000};
    h.nodes.push_back(
        {.kind = DeviceNodeKind::nvidia_gpu, .relative_path = "nvidia0", .nvidia_minor = 0});
    in.holders = {h};
    in.processes = {ProcessInfo{.pid = 800, .comm = "sshd", .start_time_ticks = 9999}};
    Snapshot s = merge_snapshot(std::move(in));
    ASSERT_EQ(s.processes.size(), 1u);
    EXPECT_FALSE(s.processes[0].info_complete);
    EXPECT_NE(s.processes[0].info.comm, "sshd");
}

}  // namespace
}  // namespace gpukill

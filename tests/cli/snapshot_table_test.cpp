#include "cli/snapshot_table.hpp"

#include <gtest/gtest.h>

#include "discovery/merge.hpp"

namespace gpukill::cli {
namespace {

constexpr std::uint64_t GiB = 1ULL << 30;

Snapshot orphan_and_leak_snapshot() {
    MergeInputs in;
    in.host = "node7";
    GpuReading busy;
    busy.backend = "nvml";
    busy.name = "NVIDIA H100 80GB HBM3";
    busy.pci_bus_id = "0000:18:00.0";
    busy.nvidia_minor = 0;
    busy.memory_total_bytes = 80 * GiB;
    busy.memory_used_bytes = 12 * GiB;
    busy.utilization_percent = 37;
    busy.temperature_celsius = 45;
    busy.power_watts = 210.4;
    busy.processes = std::vector<DriverProcess>{{100, 8 * GiB}};
    GpuReading leaked = busy;
    leaked.backend_index = 1;
    leaked.pci_bus_id = "0000:2a:00.0";
    leaked.nvidia_minor = 1;
    leaked.memory_used_bytes = 2 * GiB;
    leaked.temperature_celsius.reset();
    leaked.processes = std::vector<DriverProcess>{};
    in.readings = {busy, leaked};
    DeviceHolder trainer{.pid = 100};  // a CUDA process: the UVM node as well as the GPU's
    trainer.nodes.push_back({.kind = DeviceNodeKind::nvidia_uvm, .relative_path = "nvidia-uvm"});
    trainer.nodes.push_back(
        {.kind = DeviceNodeKind::nvidia_gpu, .relative_path = "nvidia0", .nvidia_minor = 0});
    DeviceHolder worker{.pid = 201};
    worker.nodes = trainer.nodes;
    in.holders = {trainer, worker};
    ProcessInfo trainer_info{.pid = 100, .ppid = 50, .user = "alice", .comm = "python"};
    trainer_info.cmdline = {"python", "train.py"};
    ProcessInfo worker_info{.pid = 201, .ppid = 1, .user = "bob", .comm = "pt_worker"};
    in.processes = {trainer_info, worker_info};
    Snapshot s = merge_snapshot(std::move(in));
    s.processes[1].orphaned = true;  // discover() decides this from /proc
    return s;
}

TEST(SnapshotTable, GpuRowsShowMemoryUtilisationAndTheTopProcess) {
    std::string out = render_snapshot_table(orphan_and_leak_snapshot(), {});
    EXPECT_NE(out.find("12.0 GiB / 80.0 GiB (15%)"), std::string::npos) << out;
    EXPECT_NE(out.find("37%"), std::string::npos);
    EXPECT_NE(out.find("45°C"), std::string::npos);
    EXPECT_NE(out.find("210 W"), std::string::npos);
    EXPECT_NE(out.find("python (100) 8.0 GiB"), std::string::npos) << out;
}

TEST(SnapshotTable, UnreportedMetricsShowAsNotAvailable) {
    std::string out = render_snapshot_table(orphan_and_leak_snapshot(), {});
    EXPECT_NE(out.find("N/A"), std::string::npos) << out;
}

TEST(SnapshotTable, UnattributedMemoryIsExplainedWithTheFileOnlyHolders) {
    std::string out = render_snapshot_table(orphan_and_leak_snapshot(), {});
    EXPECT_NE(out.find("GPU 0: 4.0 GiB used but not in the driver's process list"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("(PID 201)"), std::string::npos) << out;
    EXPECT_NE(out.find("GPU 1: 2.0 GiB used and no process holds this GPU"), std::string::npos)
        << out;
    EXPECT_NE(out.find("only a GPU reset frees it"), std::string::npos);
}

TEST(SnapshotTable, DetailsMarkFileOnlyProcessesAndOrphans) {
    std::string out = render_snapshot_table(orphan_and_leak_snapshot(), {.details = true});
    EXPECT_NE(out.find("file only *"), std::string::npos) << out;
    EXPECT_NE(out.find("pt_worker (parent gone)"), std::string::npos) << out;
    EXPECT_NE(out.find("driver+file"), std::string::npos) << out;
    EXPECT_NE(out.find("python train.py"), std::string::npos) << out;
}

TEST(SnapshotTable, WithoutGpusItSaysSoAndStillListsHolders) {
    MergeInputs in;
    in.backends.push_back({.name = "nvml", .detail = "no NVIDIA driver library found"});
    DeviceHolder h{.pid = 42};
    h.nodes.push_back(
        {.kind = DeviceNodeKind::nvidia_gpu, .relative_path = "nvidia0", .nvidia_minor = 0});
    in.holders = {h};
    in.processes = {ProcessInfo{.pid = 42, .comm = "python"}};
    std::string out = render_snapshot_table(merge_snapshot(std::move(in)), {});
    EXPECT_NE(out.find("No GPUs found."), std::string::npos) << out;
    EXPECT_NE(out.find("no NVIDIA driver library found"), std::string::npos);
    EXPECT_NE(out.find("42"), std::string::npos);
    EXPECT_NE(out.find("python"), std::string::npos);
}

}  // namespace
}  // namespace gpukill::cli

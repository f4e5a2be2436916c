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

std::vector<std::string> table_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = text.find('\n', start);
        lines.push_back(text.substr(start, end - start));
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return lines;
}

// At 80 columns the columns with nothing to say (no container, no image) go before
// COMMAND is cut, and COMMAND gets what is left.
TEST(SnapshotTable, At80ColumnsEmptyColumnsGoFirstAndCommandGetsTheRoom) {
    Snapshot snapshot = orphan_and_leak_snapshot();
    snapshot.processes[0].info.cmdline = {"python", "train.py", "--epochs", "90"};
    for (std::size_t width : {80, 100}) {
        const std::string out = render_snapshot_table(snapshot, {.details = true, .width = width});
        for (const std::string& line : table_lines(out)) {
            EXPECT_LE(cli::display_width(line), width) << line;
        }
        EXPECT_EQ(out.find("CONTAINER"), std::string::npos) << out;
        EXPECT_EQ(out.find("IMAGE"), std::string::npos) << out;
        EXPECT_NE(out.find("COMMAND"), std::string::npos) << out;
        // COMMAND gets every column the others leave: the trainer's row reaches the edge.
        bool trainer = false;
        for (const std::string& line : table_lines(out)) {
            if (line.find("  100  alice") == std::string::npos) continue;
            trainer = true;
            EXPECT_EQ(cli::display_width(line), width) << line;
            EXPECT_NE(line.find("python train.py"), std::string::npos) << line;
        }
        EXPECT_TRUE(trainer) << out;
    }

    // With a container and an image, the columns say something and stay when they fit.
    snapshot.processes[0].info.container = ContainerInfo{.runtime = "docker", .id = "3f2a9c1b0d4e"};
    snapshot.processes[0].info.container->image = "pytorch:24.01";
    const std::string wide = render_snapshot_table(snapshot, {.details = true});
    EXPECT_NE(wide.find("IMAGE"), std::string::npos) << wide;
    EXPECT_NE(wide.find("pytorch:24.01"), std::string::npos) << wide;
}

// A holder in a Kubernetes pod adds NAMESPACE and POD, which go first when the terminal
// is narrow (the container and its image say more); no pod anywhere, no columns.
TEST(SnapshotTable, PodColumnsShowWhenAPodIsKnownAndGoFirstWhenNarrow) {
    Snapshot snapshot = orphan_and_leak_snapshot();
    const std::string without = render_snapshot_table(snapshot, {.details = true});
    EXPECT_EQ(without.find("NAMESPACE"), std::string::npos) << without;
    EXPECT_EQ(without.find("POD"), std::string::npos) << without;

    snapshot.processes[0].info.container =
        ContainerInfo{.runtime = "containerd",
                      .id = std::string(64, 'a'),
                      .pod_uid = "0d1e2f3a-1111-2222-3333-444455556666",
                      .pod_namespace = "vision-train",
                      .image = "nvcr.io/nvidia/pytorch:24.01-py3",
                      .pod_name = "trainer-7f9c",
                      .container_name = "trainer"};
    const std::string wide = render_snapshot_table(snapshot, {.details = true});
    EXPECT_NE(wide.find("NAMESPACE"), std::string::npos) << wide;
    EXPECT_NE(wide.find("POD"), std::string::npos) << wide;
    bool trainer = false;
    for (const std::string& line : table_lines(wide)) {
        if (line.find("  100  alice") == std::string::npos) continue;
        trainer = true;
        EXPECT_NE(line.find("vision-train  trainer-7f9c  nvcr.io/nvidia/pytorch:24.01-py3"),
                  std::string::npos)
            << line;
    }
    EXPECT_TRUE(trainer) << wide;
    // The other holder is in no pod: a dash in both columns, as for any unknown cell.
    std::size_t namespace_at = std::string::npos;
    std::size_t pod_at = std::string::npos;
    for (const std::string& line : table_lines(wide)) {
        if (line.find("NAMESPACE") != std::string::npos) {
            namespace_at = line.find("NAMESPACE");
            pod_at = line.find("POD");
        }
        if (line.find("  201  bob") != std::string::npos) {
            ASSERT_NE(pod_at, std::string::npos) << wide;
            EXPECT_EQ(line.substr(namespace_at, 2), "- ") << line;
            EXPECT_EQ(line.substr(pod_at, 2), "- ") << line;
        }
    }

    const std::string narrow = render_snapshot_table(snapshot, {.details = true, .width = 140});
    EXPECT_EQ(narrow.find("POD"), std::string::npos) << narrow;
    EXPECT_NE(narrow.find("IMAGE"), std::string::npos) << narrow;
}

// TOP PROCESS gives up the memory, then the name, but never cuts the PID.
TEST(SnapshotTable, TheTopProcessKeepsItsPidWholeAtAnyWidth) {
    Snapshot snapshot = orphan_and_leak_snapshot();
    snapshot.processes[0].info.comm = "python3-trainer";
    for (std::size_t width : {76, 78, 80, 84, 90, 100}) {
        const std::string out = render_snapshot_table(snapshot, {.width = width});
        const std::vector<std::string> lines = table_lines(out);
        ASSERT_GE(lines.size(), 3u) << out;
        const std::string& gpu0 = lines[2];  // host line, header, GPU 0
        EXPECT_LE(cli::display_width(gpu0), width) << gpu0;
        EXPECT_NE(gpu0.find("(100)"), std::string::npos) << width << ": " << gpu0;
    }
    const std::string wide = render_snapshot_table(snapshot, {});
    EXPECT_NE(wide.find("python3-trainer (100) 8.0 GiB"), std::string::npos) << wide;
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

#include "model/snapshot_json.hpp"

#include <gtest/gtest.h>

#include "discovery/merge.hpp"

namespace gpukill {
namespace {

TEST(SnapshotJson, CarriesTheSchemaVersionAndDocumentedFields) {
    MergeInputs in;
    in.host = "node7";
    in.timestamp_unix_ms = 1795994388787;
    GpuReading r;
    r.backend = "nvml";
    r.name = "NVIDIA H100 80GB HBM3";
    r.uuid = "GPU-1";
    r.pci_bus_id = "0000:18:00.0";
    r.nvidia_minor = 0;
    r.memory_total_bytes = 100;
    r.memory_used_bytes = 60;
    r.processes = std::vector<DriverProcess>{{10, 40}};
    in.readings = {r};
    DeviceHolder h{.pid = 10};
    h.nodes.push_back({.kind = DeviceNodeKind::nvidia_gpu,
                       .relative_path = "nvidia0",
                       .nvidia_minor = 0,
                       .access = {.mapping = true}});
    h.nodes.push_back({.kind = DeviceNodeKind::nvidia_ctl,
                       .relative_path = "nvidiactl",
                       .access = {.descriptor = true, .mapping = true}});
    in.holders = {h};
    ProcessInfo p{.pid = 10, .ppid = 1, .uid = 1000u, .user = "alice", .comm = "python"};
    p.cmdline = {"python", "train.py", "--lr", "3e-4"};
    p.start_time_ticks = 500;
    p.container = ContainerInfo{.runtime = "docker", .id = "abc"};
    in.processes = {p};
    Snapshot s = merge_snapshot(std::move(in));
    s.devfs = "/dev";
    s.boot_time_unix_s = 1700000000;
    s.clock_ticks_per_second = 100;

    auto doc = to_json(s);
    EXPECT_EQ(doc["schema_version"], kSnapshotSchemaVersion);
    EXPECT_EQ(doc["host"], "node7");
    EXPECT_EQ(doc["timestamp"], "2026-11-29T23:19:48.787Z");
    const auto& gpu = doc["gpus"][0];
    EXPECT_EQ(gpu["index"], 0);
    EXPECT_EQ(gpu["vendor"], "nvidia");
    EXPECT_EQ(gpu["memory_used_bytes"], 60);
    EXPECT_EQ(gpu["unattributed_memory_bytes"], 20);
    EXPECT_TRUE(gpu["temperature_celsius"].is_null());
    EXPECT_TRUE(gpu["power_watts"].is_null());
    EXPECT_TRUE(gpu["utilization_percent"].is_null());
    const auto& proc = doc["processes"][0];
    EXPECT_EQ(proc["pid"], 10);
    EXPECT_EQ(proc["user"], "alice");
    EXPECT_EQ(proc["cmdline"], "python train.py --lr 3e-4");
    EXPECT_EQ(proc["start_time"], "2023-11-14T22:13:25.000Z");
    EXPECT_EQ(proc["container"]["runtime"], "docker");
    EXPECT_EQ(proc["gpus"][0]["index"], 0);
    EXPECT_EQ(proc["gpus"][0]["memory_bytes"], 40);
    EXPECT_EQ(proc["gpus"][0]["seen_by"], nlohmann::json({"driver", "device_file"}));
    EXPECT_EQ(proc["device_files"][0], "/dev/nvidia0");
    // How each is held: fuser's f/F ("descriptor") and m ("mapping").
    EXPECT_EQ(proc["device_file_access"],
              nlohmann::json::parse(
                  R"({"/dev/nvidia0": ["mapping"], "/dev/nvidiactl": ["descriptor", "mapping"]})"));
}

TEST(SnapshotJson, AProcessWithoutDetailsHasNullsNotInventedValues) {
    MergeInputs in;
    GpuReading r;
    r.processes = std::vector<DriverProcess>{{10, std::nullopt}};
    in.readings = {r};
    auto doc = to_json(merge_snapshot(std::move(in)));
    const auto& proc = doc["processes"][0];
    EXPECT_EQ(proc["pid"], 10);
    EXPECT_TRUE(proc["user"].is_null());
    EXPECT_TRUE(proc["ppid"].is_null());
    EXPECT_TRUE(proc["start_time"].is_null());
    EXPECT_TRUE(proc["gpus"][0]["memory_bytes"].is_null());
    EXPECT_EQ(proc["info_complete"], false);
}

}  // namespace
}  // namespace gpukill

// `gpukill list --json` read back into a Snapshot: the document round-trips field for
// field, and documents of another schema or with wrong types are refused.
#include "model/snapshot_json_read.hpp"

#include <gtest/gtest.h>

#include "model/snapshot_json.hpp"

namespace gpukill {
namespace {

Snapshot rich_snapshot() {
    Snapshot s;
    s.host = "node7";
    s.timestamp_unix_ms = 1795996800123;
    s.devfs = "/tmp/sim/dev";
    s.boot_time_unix_s = 1795900000;
    s.backends.push_back(BackendStatus{.name = "nvml",
                                       .loaded = true,
                                       .detail = "libnvidia-ml.so.1",
                                       .driver_version = "550.54.15"});
    s.processes_scanned = 311;
    s.processes_denied = 2;
    s.warnings = {"2 processes could not be read"};
    Gpu gpu;
    gpu.index = 0;
    gpu.reading.name = "NVIDIA H100 80GB HBM3";
    gpu.reading.uuid = "GPU-0";
    gpu.reading.pci_bus_id = "0000:18:00.0";
    gpu.reading.nvidia_minor = 0;
    gpu.reading.memory_total_bytes = 85520809984;
    gpu.reading.memory_used_bytes = 4ULL << 30;
    gpu.reading.utilization_percent = 97;
    gpu.reading.temperature_celsius = -3;
    gpu.reading.power_watts = 312.5;
    gpu.reading.persistence_mode = true;
    gpu.reading.nvml_architecture = 9;  // hopper
    gpu.reading.nvlink_peer_bus_ids = std::vector<std::string>{"0000:2a:00.0"};
    gpu.reading.processes = std::vector<DriverProcess>{};
    gpu.reading.problems = {"ecc: Not Supported"};
    gpu.unattributed_memory_bytes = 0;
    gpu.process_count = 2;
    s.gpus.push_back(gpu);
    Gpu lost;
    lost.index = 1;
    lost.reading.vendor = Vendor::amd;
    lost.reading.backend = "drm";
    lost.reading.lost = true;
    lost.reading.driver = "amdgpu";
    lost.reading.drm_card = "card1";
    lost.reading.drm_render_node = "renderD128";
    lost.reading.gtt_total_bytes = 1ULL << 34;
    lost.reading.gtt_used_bytes = 0;
    s.processes_fdinfo_denied = 1;
    s.gpus.push_back(lost);

    SnapshotProcess trainer;
    trainer.info = ProcessInfo{.pid = 4242,
                               .ppid = 1,
                               .pgid = 4242,
                               .sid = 4000,
                               .uid = 1000,
                               .user = "alice",
                               .comm = "python3",
                               .cmdline = {"python3", "train.py", "--lr", "0.1"},
                               .exe = "/usr/bin/python3.11",
                               .start_time_ticks = 123457,
                               .state = 'R',
                               .nspid = {4242, 7}};
    trainer.info.container =
        ContainerInfo{"docker", std::string(64, 'a'), std::nullopt, std::nullopt};
    trainer.orphaned = true;
    trainer.gpus.push_back(ProcessGpuUse{.gpu_index = 0,
                                         .memory_bytes = 4ULL << 30,
                                         .driver_kind = DriverProcessKind::compute,
                                         .seen_by = {true, true},
                                         .utilization_percent = 97});
    trainer.device_nodes.push_back(DeviceNode{.kind = DeviceNodeKind::nvidia_gpu,
                                              .relative_path = "nvidia0",
                                              .nvidia_minor = 0,
                                              .access = {.descriptor = true, .mapping = true}});
    trainer.device_nodes.push_back(DeviceNode{.kind = DeviceNodeKind::dri_render,
                                              .relative_path = "dri/renderD128",
                                              .dri_minor = 128,
                                              .access = {.mapping = true}});
    s.processes.push_back(trainer);
    s.gpus[0].reading.processes->push_back(
        DriverProcess{4242, 4ULL << 30, DriverProcessKind::compute});

    SnapshotProcess gone;
    gone.info.pid = 5000;
    gone.info_complete = false;
    gone.gpus.push_back(ProcessGpuUse{.gpu_index = 0, .seen_by = {false, true}});
    s.processes.push_back(gone);
    return s;
}

TEST(SnapshotJsonRead, ADocumentRoundTripsFieldForField) {
    const Snapshot original = rich_snapshot();
    const auto document = to_json(original);
    auto read = snapshot_from_json(document.dump());
    ASSERT_TRUE(read) << read.error().what;
    EXPECT_EQ(to_json(*read), document);
    // What the rules look at survives directly, too.
    EXPECT_EQ(read->devfs, "/tmp/sim/dev");
    EXPECT_EQ(read->boot_time_unix_s, 1795900000);
    const SnapshotProcess& trainer = read->processes[0];
    EXPECT_EQ(trainer.info.identity(), (ProcessIdentity{4242, 123457}));
    EXPECT_EQ(trainer.info.cmdline, original.processes[0].info.cmdline);
    EXPECT_EQ(trainer.device_nodes, original.processes[0].device_nodes);
    EXPECT_TRUE(trainer.orphaned);
    ASSERT_TRUE(read->gpus[0].reading.processes);
    ASSERT_EQ(read->gpus[0].reading.processes->size(), 1u);
    EXPECT_EQ((*read->gpus[0].reading.processes)[0].pid, 4242);
    EXPECT_FALSE(read->gpus[1].reading.processes);
    EXPECT_FALSE(read->processes[1].info_complete);
}

TEST(SnapshotJsonRead, HowEachDeviceFileIsHeldIsReadBackAndCheckedWhenGiven) {
    auto document = to_json(rich_snapshot());
    EXPECT_EQ(nlohmann::json::parse(document["processes"][0]["device_file_access"].dump()),
              nlohmann::json::parse(R"({"/tmp/sim/dev/nvidia0": ["descriptor", "mapping"],
                                        "/tmp/sim/dev/dri/renderD128": ["mapping"]})"));
    // A document from before the field: how the files were held is not known.
    document["processes"][0].erase("device_file_access");
    auto older = snapshot_from_json(document.dump());
    ASSERT_TRUE(older) << older.error().what;
    EXPECT_EQ(older->processes[0].device_nodes[0].access, NodeAccess{});
    EXPECT_EQ(older->processes[0].device_nodes.size(), 2u);

    document = to_json(rich_snapshot());
    document["processes"][0]["device_file_access"]["/tmp/sim/dev/nvidia0"] = {"borrowed"};
    EXPECT_EQ(snapshot_from_json(document.dump()).error().what,
              "not a `gpukill list --json` document: snapshot.device_file_access is missing or "
              "has the wrong type");
    document = to_json(rich_snapshot());
    document["processes"][0]["device_file_access"].erase("/tmp/sim/dev/nvidia0");
    EXPECT_FALSE(snapshot_from_json(document.dump()));
}

TEST(SnapshotJsonRead, LaterAddedFieldsAreIgnored) {
    auto document = to_json(rich_snapshot());
    document["future_field"] = 1;
    document["gpus"][0]["fan_percent"] = 30;
    document["processes"][0]["gpus"][0]["utilization_percent"] = 55;
    auto read = snapshot_from_json(document.dump());
    ASSERT_TRUE(read) << read.error().what;
    EXPECT_EQ(read->processes[0].gpus[0].utilization_percent, 55u);
}

TEST(SnapshotJsonRead, OtherDocumentsAreRefused) {
    EXPECT_EQ(snapshot_from_json("not json").error().what,
              "not a `gpukill list --json` document: not a JSON object");
    EXPECT_EQ(snapshot_from_json(R"({"schema_version": 2})").error().what,
              "not a `gpukill list --json` document of schema version 1");
    auto document = to_json(rich_snapshot());
    document["gpus"][0]["memory_used_bytes"] = "4G";
    EXPECT_EQ(snapshot_from_json(document.dump()).error().what,
              "not a `gpukill list --json` document: snapshot.memory_used_bytes is missing or has "
              "the wrong type");
    document = to_json(rich_snapshot());
    document["processes"][0].erase("orphaned");
    EXPECT_FALSE(snapshot_from_json(document.dump()));
}

// `guard test --snapshot FILE` reads a file anyone may have written: 150,000 nested
// brackets are refused before a tree is built (and copied, and printed, recursively).
TEST(SnapshotJsonRead, DeeplyNestedDocumentsAreRefusedUnbuilt) {
    const std::string deep = R"({"schema_version": 1, "host": )" + std::string(150000, '[') +
                             std::string(150000, ']') + "}";
    auto refused = snapshot_from_json(deep);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().what,
              "not a `gpukill list --json` document: nested deeper than 64 levels");
}

}  // namespace
}  // namespace gpukill

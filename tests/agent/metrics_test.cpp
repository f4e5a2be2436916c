// The agent's /metrics rendering on fixture snapshots: dcgm-exporter's labels, the
// bounded per-process series, escaping of hostile process names, both formats.
#include <gtest/gtest.h>

#include <string>

#include "agent/metrics.hpp"

namespace gpukill::agent {
namespace {

Gpu nvidia_gpu(unsigned index, std::uint64_t used) {
    Gpu gpu;
    gpu.index = index;
    gpu.reading.vendor = Vendor::nvidia;
    gpu.reading.backend = "nvml";
    gpu.reading.name = "NVIDIA A100-SXM4-80GB";
    gpu.reading.uuid = "GPU-" + std::to_string(index);
    gpu.reading.pci_bus_id = "0000:3b:00." + std::to_string(index);
    gpu.reading.nvidia_minor = index;
    gpu.reading.memory_total_bytes = 80ULL << 30;
    gpu.reading.memory_used_bytes = used;
    gpu.reading.utilization_percent = 42;
    gpu.reading.temperature_celsius = 61;
    gpu.reading.power_watts = 250.5;
    gpu.reading.energy_joules = 123456.789;
    gpu.unattributed_memory_bytes = 0;
    return gpu;
}

SnapshotProcess holder(pid_t pid, std::string comm, unsigned gpu, std::uint64_t memory) {
    SnapshotProcess process;
    process.info.pid = pid;
    process.info.comm = std::move(comm);
    process.info.user = "alice";
    ProcessGpuUse use;
    use.gpu_index = gpu;
    use.memory_bytes = memory;
    use.seen_by.driver = true;
    use.seen_by.device_file = true;
    process.gpus.push_back(use);
    return process;
}

std::string render(const Snapshot& snapshot, MetricsOptions options = {},
                   const AgentCounters* counters = nullptr) {
    MetricsInputs inputs;
    inputs.snapshot = &snapshot;
    inputs.counters = counters;
    inputs.version = "1.2.3";
    return render_metrics(inputs, options);
}

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

TEST(AgentMetrics, GpuFamiliesCarryDcgmExporterLabelNames) {
    Snapshot snapshot;
    snapshot.host = "node7";
    snapshot.gpus.push_back(nvidia_gpu(0, 3ULL << 30));
    const std::string text = render(snapshot);
    const std::string labels =
        "{gpu=\"0\",UUID=\"GPU-0\",pci_bus_id=\"00000000:3B:00.0\",device=\"nvidia0\","
        "modelName=\"NVIDIA A100-SXM4-80GB\",Hostname=\"node7\"}";
    EXPECT_TRUE(has(text, "gpukill_gpu_memory_used_bytes" + labels + " 3221225472\n")) << text;
    EXPECT_TRUE(has(text, "gpukill_gpu_memory_total_bytes" + labels + " 85899345920\n"));
    EXPECT_TRUE(has(text, "gpukill_gpu_utilization_ratio" + labels + " 0.42\n"));
    EXPECT_TRUE(has(text, "gpukill_gpu_temperature_celsius" + labels + " 61\n"));
    EXPECT_TRUE(has(text, "gpukill_gpu_power_watts" + labels + " 250.5\n"));
    EXPECT_TRUE(has(text, "# TYPE gpukill_gpu_energy_joules_total counter\n")) << text;
    EXPECT_TRUE(has(text, "gpukill_gpu_energy_joules_total" + labels + " 123456.789\n"));
    EXPECT_TRUE(has(text, "# TYPE gpukill_gpu_memory_used_bytes gauge\n"));
    EXPECT_FALSE(has(text, "DCGM_FI_DEV_FB_USED")) << "only with dcgm_names";

    const std::string lower = render(snapshot, MetricsOptions{.lowercase_hostname = true});
    EXPECT_TRUE(has(lower, ",hostname=\"node7\"}")) << lower;
    EXPECT_FALSE(has(lower, "Hostname="));
}

TEST(AgentMetrics, DcgmNamesForNvidiaGpusOnlyInDcgmUnits) {
    Snapshot snapshot;
    snapshot.host = "node7";
    snapshot.gpus.push_back(nvidia_gpu(0, 3ULL << 30));
    Gpu amd = nvidia_gpu(1, 1ULL << 30);
    amd.reading.vendor = Vendor::amd;
    amd.reading.nvidia_minor.reset();
    amd.reading.drm_card = "card1";
    snapshot.gpus.push_back(amd);
    const std::string text = render(snapshot, MetricsOptions{.dcgm_names = true});
    EXPECT_TRUE(has(text, "DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"GPU-0\"")) << text;
    EXPECT_TRUE(has(text, "Hostname=\"node7\"} 3072\n")) << "MiB";
    EXPECT_TRUE(has(text, "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\""));
    EXPECT_FALSE(has(text, "DCGM_FI_DEV_FB_USED{gpu=\"1\"")) << "AMD is not DCGM's";
    // dcgm-exporter's energy counter: millijoules, its own name without _total, declared
    // gauge so both formats are valid and Prometheus stores a known type.
    EXPECT_TRUE(has(text, "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION gauge\n")) << text;
    EXPECT_TRUE(has(text, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\","));
    EXPECT_TRUE(has(text, "Hostname=\"node7\"} 123456789\n")) << "mJ";
    EXPECT_FALSE(has(text, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION_total"));
    const std::string open =
        render(snapshot, MetricsOptions{.dcgm_names = true, .openmetrics = true});
    EXPECT_TRUE(has(open, "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION gauge\n")) << open;
    EXPECT_FALSE(has(open, " unknown\n")) << open;
    EXPECT_TRUE(has(open, "# TYPE gpukill_gpu_energy_joules counter\n"));
    EXPECT_TRUE(has(open, "gpukill_gpu_energy_joules_total{gpu=\"0\""));
    // gpukill's own families cover every vendor; the AMD GPU's device is its DRM card.
    EXPECT_TRUE(has(text,
                    "gpukill_gpu_memory_used_bytes{gpu=\"1\",UUID=\"GPU-1\","
                    "pci_bus_id=\"0000:3b:00.1\",device=\"card1\""))
        << text;
}

TEST(AgentMetrics, ProcessSeriesAreTheTopNPerGpuAndTheRestIsAggregated) {
    Snapshot snapshot;
    snapshot.host = "h";
    snapshot.gpus.push_back(nvidia_gpu(0, 15ULL << 20));
    for (pid_t pid = 100; pid < 105; ++pid) {
        snapshot.processes.push_back(
            holder(pid, "w" + std::to_string(pid), 0, static_cast<std::uint64_t>(pid - 99) << 20));
    }
    const std::string text = render(snapshot, MetricsOptions{.top_processes = 2});
    EXPECT_TRUE(has(text,
                    "gpukill_process_gpu_memory_bytes{gpu=\"0\",UUID=\"GPU-0\",pid=\"104\","
                    "user=\"alice\",name=\"w104\",pod=\"\",namespace=\"\",container=\"\","
                    "container_id=\"\",pod_uid=\"\",Hostname=\"h\"} 5242880\n"))
        << text;
    EXPECT_TRUE(has(text, "pid=\"103\""));
    EXPECT_FALSE(has(text, "pid=\"102\"")) << "beyond the top 2";
    // 1 + 2 + 3 MiB in three processes.
    EXPECT_TRUE(has(text,
                    "gpukill_gpu_other_processes_memory_bytes{gpu=\"0\",UUID=\"GPU-0\","
                    "Hostname=\"h\"} 6291456\n"));
    EXPECT_TRUE(
        has(text, "gpukill_gpu_other_processes{gpu=\"0\",UUID=\"GPU-0\",Hostname=\"h\"} 3\n"));
    EXPECT_TRUE(has(text, "gpukill_gpu_processes{gpu=\"0\""));
}

TEST(AgentMetrics, HostileProcessNamesAreEscapedAndValidUtf8) {
    EXPECT_EQ(escape_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    EXPECT_EQ(escape_label_value("x\xff"
                                 "y"),
              "x\xEF\xBF\xBDy");
    EXPECT_EQ(escape_label_value("caf\xC3\xA9"), "caf\xC3\xA9");

    Snapshot snapshot;
    snapshot.gpus.push_back(nvidia_gpu(0, 1ULL << 20));
    snapshot.processes.push_back(holder(7, "evil\"} 1\ninjected{a=\"", 0, 1ULL << 20));
    const std::string text = render(snapshot);
    EXPECT_FALSE(has(text, "\ninjected")) << "a name cannot start a line";
    EXPECT_TRUE(has(text, "name=\"evil\\\"} 1\\ninjected{a=\\\"\""));
}

TEST(AgentMetrics, FileOnlyOrphanedAndSoftLockedGpusAreCounted) {
    Snapshot snapshot;
    Gpu locked = nvidia_gpu(0, 2ULL << 30);
    locked.unattributed_memory_bytes = 2ULL << 30;
    snapshot.gpus.push_back(locked);
    Gpu held = nvidia_gpu(1, 1ULL << 30);
    snapshot.gpus.push_back(held);
    SnapshotProcess file_only = holder(9, "loader", 1, 0);
    file_only.gpus[0].memory_bytes.reset();
    file_only.gpus[0].seen_by.driver = false;
    file_only.orphaned = true;
    snapshot.processes.push_back(file_only);
    const std::string text = render(snapshot);
    EXPECT_TRUE(has(text, "gpukill_gpu_soft_locked{gpu=\"0\"")) << text;
    EXPECT_TRUE(has(text, "Hostname=\"\"} 1\ngpukill_gpu_soft_locked{gpu=\"1\""));
    EXPECT_TRUE(has(text, "gpukill_gpu_memory_unaccounted_bytes{gpu=\"0\""));
    const auto line_of = [&](const std::string& family, const std::string& gpu) {
        const std::size_t at = text.find(family + "{gpu=\"" + gpu + "\"");
        return at == std::string::npos ? std::string() : text.substr(at, text.find('\n', at) - at);
    };
    EXPECT_TRUE(line_of("gpukill_gpu_file_only_holders", "1").ends_with(" 1"));
    EXPECT_TRUE(line_of("gpukill_gpu_orphaned_holders", "1").ends_with(" 1"));
    EXPECT_TRUE(line_of("gpukill_gpu_file_only_holders", "0").ends_with(" 0"));
}

TEST(AgentMetrics, CountersEndInTotalAndOpenMetricsDeclaresThemWithout) {
    Snapshot snapshot;
    snapshot.host = "n1";
    AgentCounters counters;
    counters.samples = 3;
    counters.processes_ended["agent"] = 2;
    counters.reclaimed_bytes["agent"] = 4096;
    counters.guard_actions[{"terminate", "terminated"}] = 1;
    const std::string text = render(snapshot, {}, &counters);
    EXPECT_TRUE(has(text,
                    "# TYPE gpukill_agent_samples_total counter\n"
                    "gpukill_agent_samples_total{Hostname=\"n1\"} 3\n"))
        << text;
    EXPECT_TRUE(
        has(text, "gpukill_processes_ended_total{interface=\"agent\",Hostname=\"n1\"} 2\n"));
    EXPECT_TRUE(
        has(text, "gpukill_reclaimed_bytes_total{interface=\"agent\",Hostname=\"n1\"} 4096\n"));
    EXPECT_TRUE(has(text,
                    "gpukill_guard_actions_total{verdict=\"terminate\",outcome=\"terminated\","
                    "Hostname=\"n1\"} 1\n"));
    EXPECT_TRUE(has(text, "gpukill_agent_info{version=\"1.2.3\",Hostname=\"n1\"} 1\n"));
    EXPECT_FALSE(has(text, "# EOF"));

    const std::string om = render(snapshot, MetricsOptions{.openmetrics = true}, &counters);
    EXPECT_TRUE(has(om,
                    "# TYPE gpukill_agent_samples counter\n"
                    "gpukill_agent_samples_total{Hostname=\"n1\"} 3\n"))
        << om;
    EXPECT_TRUE(om.ends_with("# EOF\n"));
}

// Every sample line of `text` (not HELP, TYPE or EOF).
std::vector<std::string> sample_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t end = text.find('\n', at);
        const std::string line = text.substr(at, end - at);
        if (!line.empty() && line[0] != '#') lines.push_back(line);
        at = end == std::string::npos ? text.size() : end + 1;
    }
    return lines;
}

TEST(AgentMetrics, EverySeriesOfEveryFamilyNamesTheHost) {
    // The shipped alerts say "on {{ $labels.Hostname }}" of gpukill_rogue_findings and
    // the guard's counters too, and the dashboard filters every panel by Hostname.
    Snapshot snapshot;
    snapshot.host = "gpu-node-3";
    snapshot.gpus.push_back(nvidia_gpu(0, 1ULL << 30));
    snapshot.processes.push_back(holder(42, "trainer", 0, 1ULL << 30));
    AgentCounters counters;
    counters.samples = 1;
    counters.guard_decisions["warn"] = 1;
    counters.http_requests[200] = 3;
    MetricsInputs inputs;
    inputs.snapshot = &snapshot;
    inputs.counters = &counters;
    inputs.rogue = RogueCounts{.scanned = true, .findings_by_risk = {{"high", 1}}};
    inputs.holder_tracking = engine::Engine::HolderTracking{.tracking = false};
    for (const bool lower : {false, true}) {
        const std::string text =
            render_metrics(inputs, MetricsOptions{.dcgm_names = true, .lowercase_hostname = lower});
        const std::string label = lower ? "hostname=\"gpu-node-3\"" : "Hostname=\"gpu-node-3\"";
        const auto lines = sample_lines(text);
        ASSERT_GT(lines.size(), 30U);
        for (const std::string& line : lines) EXPECT_TRUE(has(line, label)) << line;
        EXPECT_TRUE(has(text, "gpukill_rogue_findings{risk=\"high\"," + label + "} 1\n"));
        EXPECT_TRUE(has(text, "gpukill_agent_holder_tracking{" + label + "} 0\n")) << text;
    }
}

// On a busy node the tracker's losses, repairs and full sweeps are what says whether a
// sample cost a rescan of a few processes or a sweep of all (issue 32).
TEST(AgentMetrics, TheTrackersLossesRepairsAndSweepsAreCounters) {
    Snapshot snapshot;
    snapshot.host = "n1";
    AgentCounters counters;
    MetricsInputs inputs;
    inputs.snapshot = &snapshot;
    inputs.counters = &counters;
    inputs.holder_tracking = engine::Engine::HolderTracking{
        .tracking = true, .overflows = 7, .repairs = 6, .full_sweeps = 3};
    const std::string text = render_metrics(inputs, MetricsOptions{});
    EXPECT_TRUE(has(text, "gpukill_agent_holder_tracking{Hostname=\"n1\"} 1\n")) << text;
    EXPECT_TRUE(has(text, "# TYPE gpukill_agent_holder_event_overflows_total counter\n"));
    EXPECT_TRUE(has(text, "gpukill_agent_holder_event_overflows_total{Hostname=\"n1\"} 7\n"));
    EXPECT_TRUE(has(text, "gpukill_agent_holder_event_repairs_total{Hostname=\"n1\"} 6\n"));
    EXPECT_TRUE(has(text, "gpukill_agent_holder_full_sweeps_total{Hostname=\"n1\"} 3\n"));
    // Not tracking: no counters that would read as "no loss".
    inputs.holder_tracking = engine::Engine::HolderTracking{.tracking = false};
    EXPECT_FALSE(has(render_metrics(inputs, MetricsOptions{}), "holder_event_overflows"));
}

TEST(AgentMetrics, DcgmExporterDefaultCountersThatNvmlGives) {
    Snapshot snapshot;
    snapshot.host = "node7";
    Gpu gpu = nvidia_gpu(0, 3ULL << 30);
    GpuReading& r = gpu.reading;
    r.driver_version = "550.54.15";
    r.memory_free_bytes = (80ULL << 30) - (3ULL << 30) - (512ULL << 20);
    r.memory_reserved_bytes = 512ULL << 20;
    r.memory_utilization_percent = 21;
    r.sm_clock_mhz = 1410;
    r.memory_clock_mhz = 1593;
    r.memory_temperature_celsius = 45;
    r.pcie_replay_count = 2;
    r.encoder_utilization_percent = 3;
    r.decoder_utilization_percent = 4;
    r.remapped_rows_correctable = 5;
    r.remapped_rows_uncorrectable = 1;
    r.row_remap_failed = false;
    r.nvlink_data_kib = 123456;
    snapshot.gpus.push_back(gpu);
    const std::string text = render(snapshot, MetricsOptions{.dcgm_names = true});
    const std::string labels =
        "{gpu=\"0\",UUID=\"GPU-0\",pci_bus_id=\"00000000:3B:00.0\",device=\"nvidia0\","
        "modelName=\"NVIDIA A100-SXM4-80GB\",DCGM_FI_DRIVER_VERSION=\"550.54.15\","
        "Hostname=\"node7\"} ";
    struct Expected {
        const char* family;
        const char* value;
    };
    for (const Expected& e : std::vector<Expected>{
             {"DCGM_FI_DEV_FB_FREE", "78336"},  // MiB: 80 GiB less 3 GiB used, 512 MiB reserved
             {"DCGM_FI_DEV_FB_USED", "3072"},
             {"DCGM_FI_DEV_FB_RESERVED", "512"},
             {"DCGM_FI_DEV_GPU_UTIL", "42"},
             {"DCGM_FI_DEV_MEM_COPY_UTIL", "21"},
             {"DCGM_FI_DEV_SM_CLOCK", "1410"},
             {"DCGM_FI_DEV_MEM_CLOCK", "1593"},
             {"DCGM_FI_DEV_GPU_TEMP", "61"},
             {"DCGM_FI_DEV_MEMORY_TEMP", "45"},
             {"DCGM_FI_DEV_POWER_USAGE", "250.5"},
             {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "123456789"},
             {"DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "2"},
             {"DCGM_FI_DEV_ENC_UTIL", "3"},
             {"DCGM_FI_DEV_DEC_UTIL", "4"},
             {"DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", "123456"},
             {"DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", "5"},
             {"DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "1"},
             {"DCGM_FI_DEV_ROW_REMAP_FAILURE", "0"}}) {
        EXPECT_TRUE(has(text, std::string(e.family) + labels + e.value + "\n")) << e.family;
        // promtool's rule: only counters end in _total, and these are all gauges.
        EXPECT_TRUE(has(text, std::string("# TYPE ") + e.family + " gauge\n")) << e.family;
    }
    // A value the GPU does not report gives no sample, as dcgm-exporter skips a blank.
    r.nvlink_data_kib.reset();
    snapshot.gpus[0] = gpu;
    EXPECT_FALSE(has(render(snapshot, MetricsOptions{.dcgm_names = true}),
                     "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL{"));
}

ContainerInfo pod_container(std::string pod, std::string container, char id) {
    return ContainerInfo{.runtime = "containerd",
                         .id = std::string(64, id),
                         .pod_uid = "0d1e2f3a-1111-2222-3333-44445555666" + std::string(1, id),
                         .pod_namespace = "vision",
                         .image = "nvcr.io/nvidia/pytorch:24.01-py3",
                         .pod_name = std::move(pod),
                         .container_name = std::move(container)};
}

// As dcgm-exporter's --kubernetes mode: a GPU one pod's container uses is labelled with
// its pod, namespace and container on every family; a shared GPU keeps its unnamed
// series, and its memory in use is also given per container.
TEST(AgentMetrics, DcgmFamiliesCarryThePodUsingTheGpu) {
    Snapshot snapshot;
    snapshot.host = "node7";
    snapshot.gpus.push_back(nvidia_gpu(0, 3ULL << 30));
    snapshot.gpus.push_back(nvidia_gpu(1, 3ULL << 30));
    snapshot.gpus.push_back(nvidia_gpu(2, 1ULL << 30));
    SnapshotProcess trainer = holder(100, "python", 0, 3ULL << 30);
    trainer.info.container = pod_container("trainer-0", "trainer", 'a');
    SnapshotProcess left = holder(200, "python", 1, 1ULL << 30);
    left.info.container = pod_container("shared-a", "worker", 'b');
    SnapshotProcess right = holder(201, "python", 1, 2ULL << 30);
    right.info.container = pod_container("shared-b", "worker", 'c');
    SnapshotProcess plain = holder(300, "python", 2, 1ULL << 30);  // in no pod
    snapshot.processes = {trainer, left, right, plain};
    const std::string text = render(snapshot, MetricsOptions{.dcgm_names = true});
    const std::string gpu0 =
        "{gpu=\"0\",UUID=\"GPU-0\",pci_bus_id=\"00000000:3B:00.0\",device=\"nvidia0\","
        "modelName=\"NVIDIA A100-SXM4-80GB\",pod=\"trainer-0\",namespace=\"vision\","
        "container=\"trainer\",Hostname=\"node7\"} ";
    EXPECT_TRUE(has(text, "DCGM_FI_DEV_GPU_UTIL" + gpu0 + "42\n")) << text;
    EXPECT_TRUE(has(text, "DCGM_FI_DEV_FB_USED" + gpu0 + "3072\n")) << text;
    EXPECT_TRUE(has(text, "DCGM_FI_DEV_GPU_TEMP" + gpu0 + "61\n")) << text;

    const std::string gpu1 =
        "{gpu=\"1\",UUID=\"GPU-1\",pci_bus_id=\"00000000:3B:00.1\",device=\"nvidia1\","
        "modelName=\"NVIDIA A100-SXM4-80GB\"";
    EXPECT_TRUE(has(text, "DCGM_FI_DEV_GPU_UTIL" + gpu1 + ",Hostname=\"node7\"} 42\n")) << text;
    EXPECT_TRUE(has(text, "DCGM_FI_DEV_FB_USED" + gpu1 + ",Hostname=\"node7\"} 3072\n")) << text;
    EXPECT_TRUE(has(text, "DCGM_FI_DEV_FB_USED" + gpu1 +
                              ",pod=\"shared-a\",namespace=\"vision\",container=\"worker\","
                              "Hostname=\"node7\"} 1024\n"))
        << text;
    EXPECT_TRUE(has(text, "DCGM_FI_DEV_FB_USED" + gpu1 +
                              ",pod=\"shared-b\",namespace=\"vision\",container=\"worker\","
                              "Hostname=\"node7\"} 2048\n"))
        << text;
    EXPECT_FALSE(has(text, "DCGM_FI_DEV_GPU_UTIL" + gpu1 + ",pod=")) << "no device value twice";
    EXPECT_FALSE(has(text,
                     "gpu=\"2\",UUID=\"GPU-2\",pci_bus_id=\"00000000:3B:00.2\","
                     "device=\"nvidia2\",modelName=\"NVIDIA A100-SXM4-80GB\",pod="))
        << "a GPU no pod uses has no pod labels";

    // gpukill's own per-process family: the same names, and the ids beside them.
    EXPECT_TRUE(has(text,
                    "gpukill_process_gpu_memory_bytes{gpu=\"0\",UUID=\"GPU-0\",pid=\"100\","
                    "user=\"alice\",name=\"python\",pod=\"trainer-0\",namespace=\"vision\","
                    "container=\"trainer\",container_id=\"" +
                        std::string(64, 'a') +
                        "\",pod_uid=\"0d1e2f3a-1111-2222-3333-44445555666a\","
                        "Hostname=\"node7\"} 3221225472\n"))
        << text;
}

TEST(AgentMetrics, AcceptHeaderAndPciSpelling) {
    EXPECT_TRUE(accepts_openmetrics(
        "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"));
    EXPECT_FALSE(accepts_openmetrics("text/plain;version=0.0.4"));
    EXPECT_FALSE(accepts_openmetrics(""));
    EXPECT_EQ(nvml_pci_bus_id("0000:3b:00.0"), "00000000:3B:00.0");
    EXPECT_EQ(nvml_pci_bus_id("10000:e1:00.0"), "00010000:E1:00.0");
}

}  // namespace
}  // namespace gpukill::agent

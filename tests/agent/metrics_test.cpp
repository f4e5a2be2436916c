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
    // dcgm-exporter's energy counter: millijoules, its own name without _total.
    EXPECT_TRUE(has(text, "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n")) << text;
    EXPECT_TRUE(has(text, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\","));
    EXPECT_TRUE(has(text, "Hostname=\"node7\"} 123456789\n")) << "mJ";
    EXPECT_FALSE(has(text, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION_total"));
    // OpenMetrics requires _total on counters, so the foreign name is declared unknown.
    const std::string open =
        render(snapshot, MetricsOptions{.dcgm_names = true, .openmetrics = true});
    EXPECT_TRUE(has(open, "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION unknown\n")) << open;
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
                    "user=\"alice\",name=\"w104\",container=\"\",pod=\"\",namespace=\"\"} "
                    "5242880\n"))
        << text;
    EXPECT_TRUE(has(text, "pid=\"103\""));
    EXPECT_FALSE(has(text, "pid=\"102\"")) << "beyond the top 2";
    // 1 + 2 + 3 MiB in three processes.
    EXPECT_TRUE(has(text,
                    "gpukill_gpu_other_processes_memory_bytes{gpu=\"0\",UUID=\"GPU-0\"} "
                    "6291456\n"));
    EXPECT_TRUE(has(text, "gpukill_gpu_other_processes{gpu=\"0\",UUID=\"GPU-0\"} 3\n"));
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
    AgentCounters counters;
    counters.samples = 3;
    counters.processes_ended["agent"] = 2;
    counters.reclaimed_bytes["agent"] = 4096;
    counters.guard_actions[{"terminate", "terminated"}] = 1;
    const std::string text = render(snapshot, {}, &counters);
    EXPECT_TRUE(
        has(text, "# TYPE gpukill_agent_samples_total counter\ngpukill_agent_samples_total 3\n"))
        << text;
    EXPECT_TRUE(has(text, "gpukill_processes_ended_total{interface=\"agent\"} 2\n"));
    EXPECT_TRUE(has(text, "gpukill_reclaimed_bytes_total{interface=\"agent\"} 4096\n"));
    EXPECT_TRUE(
        has(text, "gpukill_guard_actions_total{verdict=\"terminate\",outcome=\"terminated\"} 1\n"));
    EXPECT_TRUE(has(text, "gpukill_agent_info{version=\"1.2.3\"} 1\n"));
    EXPECT_FALSE(has(text, "# EOF"));

    const std::string om = render(snapshot, MetricsOptions{.openmetrics = true}, &counters);
    EXPECT_TRUE(has(om, "# TYPE gpukill_agent_samples counter\ngpukill_agent_samples_total 3\n"))
        << om;
    EXPECT_TRUE(om.ends_with("# EOF\n"));
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

// The tables on a host with DRM GPUs: vendors named, unknown DRM metrics as "-", and
// per-process GPU% where fdinfo measured it; an NVIDIA-only host keeps nvidia-smi's look.
#include <gtest/gtest.h>

#include <sstream>

#include "cli/snapshot_table.hpp"
#include "discovery/merge.hpp"
#include "model/snapshot_json.hpp"

namespace gpukill::cli {
namespace {

constexpr std::uint64_t GiB = 1ULL << 30;

GpuReading nvidia_gpu() {
    GpuReading r;
    r.backend = "nvml";
    r.name = "NVIDIA H100 80GB HBM3";
    r.pci_bus_id = "0000:18:00.0";
    r.nvidia_minor = 0;
    r.memory_total_bytes = 80 * GiB;
    r.memory_used_bytes = 0;
    r.processes = std::vector<DriverProcess>{};
    return r;
}

Snapshot mixed_host() {
    MergeInputs in;
    GpuReading intel;
    intel.vendor = Vendor::intel;
    intel.backend = "drm";
    intel.driver = "i915";
    intel.name = "Intel GPU 0x0bda";
    intel.pci_bus_id = "0000:03:00.0";
    intel.process_list_accounts_memory = false;
    intel.processes = std::vector<DriverProcess>{{.pid = 42,
                                                  .memory_bytes = 3 * GiB,
                                                  .kind = DriverProcessKind::graphics,
                                                  .utilization_percent = 64}};
    in.readings = {nvidia_gpu(), intel};
    DeviceHolder holder{.pid = 42};
    holder.nodes.push_back({.kind = DeviceNodeKind::dri_render,
                            .relative_path = "dri/renderD128",
                            .dri_minor = 128,
                            .pci_bus_id = "0000:03:00.0"});
    in.holders = {holder};
    in.processes = {ProcessInfo{.pid = 42, .user = "carol", .comm = "ze_train"}};
    return merge_snapshot(std::move(in));
}

TEST(SnapshotTableDrm, VendorsAreNamedAndUnknownDrmMetricsAreDashes) {
    const std::string out = render_snapshot_table(mixed_host(), {});
    EXPECT_NE(out.find("VENDOR"), std::string::npos) << out;
    auto row_of = [&](const std::string& text) {
        const auto at = out.find(text);
        if (at == std::string::npos) return std::string();
        const auto begin = out.rfind('\n', at) + 1;
        return out.substr(begin, out.find('\n', at) - begin);
    };
    const std::string intel = row_of("intel (i915)");
    ASSERT_FALSE(intel.empty()) << out;
    // No memory, busy, temperature or power file: "-", not NVIDIA's "N/A".
    EXPECT_EQ(intel.find("N/A"), std::string::npos) << intel;
    std::istringstream words(intel);
    int dashes = 0;
    for (std::string word; words >> word;) dashes += word == "-" ? 1 : 0;
    EXPECT_EQ(dashes, 4) << intel;  // memory, utilisation, temperature, power
    const std::string nvidia = row_of("NVIDIA H100");
    EXPECT_NE(nvidia.find("nvidia"), std::string::npos) << nvidia;
    EXPECT_NE(nvidia.find("N/A"), std::string::npos) << nvidia;
}

TEST(SnapshotTableDrm, DetailsShowPerProcessUtilisation) {
    const std::string out = render_snapshot_table(mixed_host(), {.details = true});
    EXPECT_NE(out.find("GPU%"), std::string::npos) << out;
    EXPECT_NE(out.find("64%"), std::string::npos) << out;
    EXPECT_NE(out.find("3.0 GiB"), std::string::npos) << out;
}

TEST(SnapshotTableDrm, AnNvidiaOnlyHostHasNeitherVendorNorGpuPercentColumns) {
    MergeInputs in;
    in.readings = {nvidia_gpu()};
    in.readings[0].processes = std::vector<DriverProcess>{{.pid = 7, .memory_bytes = GiB}};
    in.processes = {ProcessInfo{.pid = 7, .comm = "python"}};
    const std::string out = render_snapshot_table(merge_snapshot(std::move(in)), {.details = true});
    EXPECT_EQ(out.find("VENDOR"), std::string::npos) << out;
    EXPECT_EQ(out.find("GPU%"), std::string::npos) << out;
    EXPECT_NE(out.find("N/A"), std::string::npos) << out;  // temperature: nvidia-smi's word
}

TEST(SnapshotJsonDrm, ProcessEntriesCarryUtilisationAndVisibilityTheDeniedCount) {
    Snapshot s = mixed_host();
    s.processes_fdinfo_denied = 2;
    const auto doc = to_json(s);
    const auto& use = doc["processes"][0]["gpus"][0];
    EXPECT_EQ(use["utilization_percent"], 64);
    EXPECT_EQ(use["memory_bytes"], 3 * GiB);
    EXPECT_EQ(use["driver_kind"], "graphics");
    EXPECT_EQ(doc["visibility"]["processes_fdinfo_denied"], 2);
    EXPECT_EQ(doc["visibility"]["complete"], true);  // the processes are listed, usage unknown
    // NVIDIA processes have no per-process utilisation: null, not 0.
    MergeInputs in;
    in.readings = {nvidia_gpu()};
    in.readings[0].processes = std::vector<DriverProcess>{{.pid = 7, .memory_bytes = GiB}};
    const auto nvidia = to_json(merge_snapshot(std::move(in)));
    EXPECT_TRUE(nvidia["processes"][0]["gpus"][0]["utilization_percent"].is_null());
}

}  // namespace
}  // namespace gpukill::cli

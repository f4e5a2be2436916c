// /dev/kfd serves every AMD GPU: a holder is tied to the AMD GPUs its render nodes and kfd's
// per-GPU entries name, and to every AMD GPU (marked any_amd_gpu) only when nothing does.
#include "discovery/kfd_attribution.hpp"

#include <gtest/gtest.h>

#include "discovery/merge.hpp"

namespace gpukill {
namespace {

// Two AMD GPUs (c1, c2) and an Intel one (03), in PCI order: Intel 0, AMD 1 and 2.
constexpr unsigned kKfdIntel = 0, kKfdFirstAmd = 1, kKfdSecondAmd = 2;

GpuReading kfd_drm_reading(Vendor vendor, unsigned card, const char* bus_id,
                           std::vector<DriverProcess> processes) {
    GpuReading r;
    r.vendor = vendor;
    r.backend = "drm";
    r.backend_index = card;
    r.pci_bus_id = bus_id;
    r.driver = vendor == Vendor::amd ? "amdgpu" : "i915";
    r.process_list_accounts_memory = false;
    r.processes = std::move(processes);
    return r;
}

DeviceNode kfd_render_node(unsigned minor, const char* bus_id) {
    return DeviceNode{.kind = DeviceNodeKind::dri_render,
                      .relative_path = "dri/renderD" + std::to_string(minor),
                      .dri_minor = minor,
                      .pci_bus_id = bus_id};
}

const DeviceNode kKfdNode{.kind = DeviceNodeKind::kfd, .relative_path = "kfd"};

// The host above; `first_amd` is the kfd list of the first AMD GPU.
MergeInputs kfd_host(std::vector<DriverProcess> first_amd = {}) {
    MergeInputs in;
    in.readings.push_back(kfd_drm_reading(Vendor::amd, 2, "0000:c2:00.0", {}));
    in.readings.push_back(kfd_drm_reading(Vendor::amd, 1, "0000:c1:00.0", std::move(first_amd)));
    in.readings.push_back(kfd_drm_reading(Vendor::intel, 0, "0000:03:00.0", {}));
    return in;
}

struct KfdTie {
    unsigned gpu;
    GpuAttribution attribution;
    friend bool operator==(const KfdTie&, const KfdTie&) = default;
};

std::vector<KfdTie> kfd_ties(const Snapshot& s, pid_t pid) {
    std::vector<KfdTie> ties;
    for (const SnapshotProcess& p : s.processes) {
        if (p.info.pid != pid) continue;
        for (const ProcessGpuUse& use : p.gpus) ties.push_back({use.gpu_index, use.attribution});
    }
    return ties;
}

constexpr GpuAttribution kKnown = GpuAttribution::this_gpu;
constexpr GpuAttribution kAnyAmd = GpuAttribution::any_amd_gpu;

TEST(KfdAttribution, TheRenderNodeNamesTheGpuAndKfdAddsNoOther) {
    MergeInputs in = kfd_host();
    in.holders.push_back(
        DeviceHolder{.pid = 500, .nodes = {kfd_render_node(128, "0000:c1:00.0"), kKfdNode}});
    Snapshot s = merge_snapshot(std::move(in));
    EXPECT_EQ(kfd_ties(s, 500), (std::vector<KfdTie>{{kKfdFirstAmd, kKnown}}));
    EXPECT_EQ(s.gpus[kKfdSecondAmd].process_count, 0u);
}

TEST(KfdAttribution, KfdsOwnEntryNamesTheGpuOfAProcessWithoutARenderNode) {
    MergeInputs in = kfd_host({DriverProcess{
        .pid = 500, .memory_bytes = 1ULL << 30, .kind = DriverProcessKind::compute}});
    in.holders.push_back(DeviceHolder{.pid = 500, .nodes = {kKfdNode}});
    Snapshot s = merge_snapshot(std::move(in));
    EXPECT_EQ(kfd_ties(s, 500), (std::vector<KfdTie>{{kKfdFirstAmd, kKnown}}));
}

TEST(KfdAttribution, RenderNodeAndKfdEntryAddUp) {
    MergeInputs in = kfd_host({DriverProcess{.pid = 500, .kind = DriverProcessKind::compute}});
    in.holders.push_back(
        DeviceHolder{.pid = 500, .nodes = {kfd_render_node(129, "0000:c2:00.0"), kKfdNode}});
    Snapshot s = merge_snapshot(std::move(in));
    EXPECT_EQ(kfd_ties(s, 500),
              (std::vector<KfdTie>{{kKfdFirstAmd, kKnown}, {kKfdSecondAmd, kKnown}}));
}

TEST(KfdAttribution, KfdAloneTiesToEveryAmdGpuMarkedAsUncertain) {
    MergeInputs in = kfd_host();
    in.holders.push_back(DeviceHolder{.pid = 500, .nodes = {kKfdNode}});
    Snapshot s = merge_snapshot(std::move(in));
    EXPECT_EQ(kfd_ties(s, 500),
              (std::vector<KfdTie>{{kKfdFirstAmd, kAnyAmd}, {kKfdSecondAmd, kAnyAmd}}));
    const ProcessGpuUse& use = s.processes.at(0).gpus.at(0);
    EXPECT_EQ(use.seen_by, (SeenBy{.driver = false, .device_file = true}));
    EXPECT_FALSE(use.memory_bytes.has_value());
}

TEST(KfdAttribution, AnotherVendorsRenderNodeNarrowsNothingAboutAmd) {
    MergeInputs in = kfd_host();
    in.holders.push_back(
        DeviceHolder{.pid = 500, .nodes = {kfd_render_node(128, "0000:03:00.0"), kKfdNode}});
    Snapshot s = merge_snapshot(std::move(in));
    EXPECT_EQ(kfd_ties(s, 500),
              (std::vector<KfdTie>{
                  {kKfdIntel, kKnown}, {kKfdFirstAmd, kAnyAmd}, {kKfdSecondAmd, kAnyAmd}}));
}

TEST(KfdAttribution, NoKfdNoFallback) {
    SnapshotProcess process;
    process.device_nodes = {kfd_render_node(128, "0000:03:00.0")};
    Snapshot s = merge_snapshot(kfd_host());
    EXPECT_TRUE(kfd_only_gpus(process, s.gpus).empty());
    process.device_nodes.push_back(kKfdNode);
    EXPECT_EQ(kfd_only_gpus(process, s.gpus), (std::vector<unsigned>{kKfdFirstAmd, kKfdSecondAmd}));
    // A known tie to an AMD GPU, however it was made, is the narrower fact.
    process.gpus.push_back(ProcessGpuUse{.gpu_index = kKfdSecondAmd});
    EXPECT_TRUE(kfd_only_gpus(process, s.gpus).empty());
}

}  // namespace
}  // namespace gpukill

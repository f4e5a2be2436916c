// The reset preflight on hand-built snapshots: which GPUs, by which path, what holds
// them, and the decision with its reason.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/nvidia_architecture.hpp"
#include "reclaim/reset_plan.hpp"

namespace gpukill {
namespace {

using reclaim::build_reset_plan;
using reclaim::ResetBlock;
using reclaim::ResetDecision;
using reclaim::ResetFacts;
using reclaim::ResetMethod;
using reclaim::ResetPlan;
using reclaim::ResetRequest;

constexpr std::uint64_t kGiB = 1ULL << 30;

Gpu nvidia(unsigned index, std::string bus) {
    Gpu gpu;
    gpu.index = index;
    gpu.reading.vendor = Vendor::nvidia;
    gpu.reading.backend = "nvml";
    gpu.reading.backend_index = index;
    gpu.reading.name = "NVIDIA H100 80GB HBM3";
    gpu.reading.pci_bus_id = std::move(bus);
    gpu.reading.memory_total_bytes = 80 * kGiB;
    gpu.reading.memory_used_bytes = 0;
    gpu.reading.processes = std::vector<DriverProcess>{};
    return gpu;
}

Gpu drm(unsigned index, Vendor vendor, std::string bus) {
    Gpu gpu;
    gpu.index = index;
    gpu.reading.vendor = vendor;
    gpu.reading.backend = "drm";
    gpu.reading.pci_bus_id = std::move(bus);
    gpu.reading.process_list_accounts_memory = false;
    return gpu;
}

void link(Gpu& gpu, unsigned architecture, std::vector<std::string> peers) {
    gpu.reading.nvml_architecture = architecture;
    gpu.reading.nvlink_peer_bus_ids = std::move(peers);
}

SnapshotProcess holder(pid_t pid, const std::string& name, unsigned gpu,
                       std::optional<std::uint64_t> bytes, bool listed) {
    SnapshotProcess process;
    process.info.pid = pid;
    process.info.comm = name;
    process.info.user = "alice";
    process.info.uid = 1000;
    process.info.start_time_ticks = 7000 + static_cast<std::uint64_t>(pid);
    ProcessGpuUse use{.gpu_index = gpu};
    use.seen_by.driver = listed;
    use.seen_by.device_file = true;
    use.memory_bytes = bytes;
    process.gpus.push_back(use);
    return process;
}

ResetFacts root_with_nvidia_smi() {
    ResetFacts facts;
    facts.privileged = true;
    facts.nvidia_smi = "/usr/bin/nvidia-smi";
    return facts;
}

ResetRequest gpus(std::vector<unsigned> indices, bool force = false) {
    return ResetRequest{.gpus = std::move(indices), .all = false, .force = force};
}

TEST(ResetPlan, AnIdleNvidiaGpuIsResetThroughNvidiaSmiAlone) {
    Snapshot snapshot;
    snapshot.gpus = {nvidia(0, "0000:18:00.0"), nvidia(1, "0000:2a:00.0")};
    ResetPlan plan = build_reset_plan(snapshot, gpus({1}), root_with_nvidia_smi());
    EXPECT_EQ(plan.decision, ResetDecision::reset);
    ASSERT_EQ(plan.gpus.size(), 1u);
    EXPECT_EQ(plan.gpus[0].index, 1u);
    EXPECT_EQ(plan.gpus[0].method, ResetMethod::nvidia_smi);
    EXPECT_EQ(plan.groups, (std::vector<std::vector<unsigned>>{{1}}));
    EXPECT_TRUE(plan.holders.empty());
}

TEST(ResetPlan, HoldersWithoutForceHoldTheResetAndAreListed) {
    Snapshot snapshot;
    snapshot.gpus = {nvidia(0, "0000:18:00.0"), nvidia(1, "0000:2a:00.0")};
    snapshot.processes = {holder(4242, "python", 0, 4 * kGiB, true),
                          holder(4243, "pt_data_worker", 0, std::nullopt, false),
                          holder(5000, "other", 1, kGiB, true)};
    ResetPlan plan = build_reset_plan(snapshot, gpus({0}), root_with_nvidia_smi());
    EXPECT_EQ(plan.decision, ResetDecision::held);
    EXPECT_EQ(plan.block, ResetBlock::holders);
    ASSERT_EQ(plan.holders.size(), 2u);  // not PID 5000: it holds GPU 1 only
    EXPECT_EQ(plan.holders[0].pid, 4242);
    EXPECT_EQ(plan.holders[0].name, "python");
    EXPECT_EQ(plan.holders[0].user, "alice");
    EXPECT_EQ(plan.holders[0].memory_bytes, 4 * kGiB);
    EXPECT_TRUE(plan.holders[0].driver_listed);
    EXPECT_FALSE(plan.holders[1].driver_listed);
    EXPECT_EQ(plan.holders[1].memory_bytes, std::nullopt);
    EXPECT_NE(plan.why.find("PID 4242 python"), std::string::npos) << plan.why;
    ASSERT_TRUE(plan.advice.has_value());
    EXPECT_NE(plan.advice->find("--force"), std::string::npos);
}

TEST(ResetPlan, ForceTurnsHoldersIntoAReclaimFirst) {
    Snapshot snapshot;
    snapshot.gpus = {nvidia(0, "0000:18:00.0")};
    snapshot.processes = {holder(4242, "python", 0, 4 * kGiB, true)};
    ResetPlan plan = build_reset_plan(snapshot, gpus({0}, true), root_with_nvidia_smi());
    EXPECT_EQ(plan.decision, ResetDecision::reclaim_then_reset);
    EXPECT_EQ(plan.block, ResetBlock::none);
    EXPECT_EQ(plan.holders.size(), 1u);
}

TEST(ResetPlan, WithoutPrivilegeItIsRefusedBeforeLookingAtHolders) {
    Snapshot snapshot;
    snapshot.gpus = {nvidia(0, "0000:18:00.0")};
    snapshot.processes = {holder(4242, "python", 0, kGiB, true)};
    ResetFacts facts = root_with_nvidia_smi();
    facts.privileged = false;
    ResetPlan plan = build_reset_plan(snapshot, gpus({0}, true), facts);
    EXPECT_EQ(plan.decision, ResetDecision::refused);
    EXPECT_EQ(plan.block, ResetBlock::permission);
    EXPECT_NE(plan.why.find("root"), std::string::npos);
}

TEST(ResetPlan, NoNvidiaSmiMeansNvidiaGpusCannotBeReset) {
    Snapshot snapshot;
    snapshot.gpus = {nvidia(0, "0000:18:00.0")};
    ResetFacts facts = root_with_nvidia_smi();
    facts.nvidia_smi.reset();
    facts.nvidia_smi_missing = "nvidia-smi is not on PATH";
    ResetPlan plan = build_reset_plan(snapshot, gpus({0}), facts);
    EXPECT_EQ(plan.block, ResetBlock::unsupported);
    EXPECT_NE(plan.why.find("not on PATH"), std::string::npos) << plan.why;
    EXPECT_NE(plan.advice->find("--nvidia-smi"), std::string::npos);
}

TEST(ResetPlan, AnIntelGpuIsUnsupportedWithWhatToDoInstead) {
    Snapshot snapshot;
    snapshot.gpus = {drm(0, Vendor::intel, "0000:00:02.0")};
    ResetFacts facts = root_with_nvidia_smi();
    facts.drivers[0] = "i915";
    facts.privileged = false;  // unsupported is said first: root would not help
    ResetPlan plan = build_reset_plan(snapshot, gpus({0}), facts);
    EXPECT_EQ(plan.decision, ResetDecision::refused);
    EXPECT_EQ(plan.block, ResetBlock::unsupported);
    EXPECT_NE(plan.why.find("an Intel GPU on driver i915"), std::string::npos) << plan.why;
    EXPECT_NE(plan.advice->find("/sys/bus/pci/drivers/i915/unbind"), std::string::npos);
}

TEST(ResetPlan, AllSkipsGpusWithoutAPathAndResetsTheRest) {
    Snapshot snapshot;
    snapshot.gpus = {drm(0, Vendor::intel, "0000:00:02.0"), nvidia(1, "0000:18:00.0")};
    ResetFacts facts = root_with_nvidia_smi();
    ResetPlan plan = build_reset_plan(snapshot, ResetRequest{.gpus = {}, .all = true}, facts);
    EXPECT_EQ(plan.decision, ResetDecision::reset);
    ASSERT_EQ(plan.gpus.size(), 1u);
    EXPECT_EQ(plan.gpus[0].index, 1u);
    ASSERT_EQ(plan.skipped.size(), 1u);
    EXPECT_EQ(plan.skipped[0].index, 0u);

    Snapshot intel_only;
    intel_only.gpus = {drm(0, Vendor::intel, "0000:00:02.0")};
    ResetPlan none = build_reset_plan(intel_only, ResetRequest{.gpus = {}, .all = true}, facts);
    EXPECT_EQ(none.block, ResetBlock::unsupported);
}

TEST(ResetPlan, AHostWithoutGpusHasNothingToDo) {
    ResetPlan plan =
        build_reset_plan(Snapshot{}, ResetRequest{.gpus = {}, .all = true}, ResetFacts{});
    EXPECT_EQ(plan.decision, ResetDecision::reset);
    EXPECT_TRUE(plan.gpus.empty());
}

TEST(ResetPlan, PreAmpereNvlinkPeersMustBeResetTogether) {
    Snapshot snapshot;
    snapshot.gpus = {nvidia(0, "0000:18:00.0"), nvidia(1, "0000:2a:00.0"),
                     nvidia(2, "0000:3a:00.0")};
    link(snapshot.gpus[0], kNvmlArchVolta, {"0000:2a:00.0"});
    link(snapshot.gpus[1], kNvmlArchVolta, {"0000:18:00.0"});
    link(snapshot.gpus[2], kNvmlArchVolta, {});
    ResetPlan alone = build_reset_plan(snapshot, gpus({0}), root_with_nvidia_smi());
    EXPECT_EQ(alone.decision, ResetDecision::refused);
    EXPECT_EQ(alone.block, ResetBlock::incomplete_group);
    EXPECT_NE(alone.why.find("GPU 1"), std::string::npos) << alone.why;
    EXPECT_NE(alone.advice->find("--gpu 0,1"), std::string::npos) << *alone.advice;

    ResetPlan both = build_reset_plan(snapshot, gpus({1, 0}), root_with_nvidia_smi());
    EXPECT_EQ(both.decision, ResetDecision::reset);
    EXPECT_EQ(both.groups, (std::vector<std::vector<unsigned>>{{0, 1}}));
    EXPECT_EQ(both.gpus[0].reset_with, (std::vector<unsigned>{0, 1}));

    ResetPlan unlinked = build_reset_plan(snapshot, gpus({2}), root_with_nvidia_smi());
    EXPECT_EQ(unlinked.decision, ResetDecision::reset);
}

TEST(ResetPlan, AmpereAndNewerResetAloneDespiteNvlink) {
    Snapshot snapshot;
    snapshot.gpus = {nvidia(0, "0000:18:00.0"), nvidia(1, "0000:2a:00.0")};
    link(snapshot.gpus[0], kNvmlArchAmpere, {"0000:2a:00.0"});
    link(snapshot.gpus[1], kNvmlArchAmpere, {"0000:18:00.0"});
    ResetPlan plan = build_reset_plan(snapshot, gpus({0}), root_with_nvidia_smi());
    EXPECT_EQ(plan.decision, ResetDecision::reset);
    EXPECT_EQ(plan.groups, (std::vector<std::vector<unsigned>>{{0}}));
}

TEST(ResetPlan, GpusOnOneNvswitchFormOneGroup) {
    Snapshot snapshot;
    const std::string nvswitch = "0000:c1:00.0";
    snapshot.gpus = {nvidia(0, "0000:18:00.0"), nvidia(1, "0000:2a:00.0"),
                     nvidia(2, "0000:3a:00.0")};
    for (Gpu& gpu : snapshot.gpus) link(gpu, kNvmlArchVolta, {nvswitch});
    EXPECT_EQ(reclaim::reset_group_of(snapshot, ResetFacts{}, 1), (std::vector<unsigned>{0, 1, 2}));
    ResetPlan plan =
        build_reset_plan(snapshot, ResetRequest{.gpus = {}, .all = true}, root_with_nvidia_smi());
    EXPECT_EQ(plan.decision, ResetDecision::reset);
    EXPECT_EQ(plan.groups, (std::vector<std::vector<unsigned>>{{0, 1, 2}}));
}

TEST(ResetPlan, UnknownArchitectureWithNvlinkIsANoteNotARefusal) {
    Snapshot snapshot;
    snapshot.gpus = {nvidia(0, "0000:18:00.0"), nvidia(1, "0000:2a:00.0")};
    snapshot.gpus[0].reading.nvlink_peer_bus_ids = std::vector<std::string>{"0000:2a:00.0"};
    ResetPlan plan = build_reset_plan(snapshot, gpus({0}), root_with_nvidia_smi());
    EXPECT_EQ(plan.decision, ResetDecision::reset);
    ASSERT_EQ(plan.gpus[0].notes.size(), 1u);
    EXPECT_NE(plan.gpus[0].notes[0].find("architecture is unknown"), std::string::npos);
}

TEST(ResetPlan, AmdGpusResetThroughDebugfsAndByXgmiHive) {
    Snapshot snapshot;
    snapshot.gpus = {drm(0, Vendor::amd, "0000:03:00.0"), drm(1, Vendor::amd, "0000:43:00.0")};
    ResetFacts facts = root_with_nvidia_smi();
    facts.drivers = {{0, "amdgpu"}, {1, "amdgpu"}};
    facts.amd[0] = {"/sys/kernel/debug/dri/0/amdgpu_gpu_recover", ""};
    facts.amd[1] = {"/sys/kernel/debug/dri/1/amdgpu_gpu_recover", ""};
    ResetPlan plan = build_reset_plan(snapshot, gpus({0}), facts);
    EXPECT_EQ(plan.decision, ResetDecision::reset);
    EXPECT_EQ(plan.gpus[0].method, ResetMethod::amdgpu_debugfs);
    EXPECT_EQ(plan.gpus[0].amdgpu_recover_path, "/sys/kernel/debug/dri/0/amdgpu_gpu_recover");

    facts.xgmi_hives = {{0, "0x1234"}, {1, "0x1234"}};
    ResetPlan hive = build_reset_plan(snapshot, gpus({0}), facts);
    EXPECT_EQ(hive.block, ResetBlock::incomplete_group);
    EXPECT_NE(hive.why.find("XGMI"), std::string::npos) << hive.why;
}

TEST(ResetPlan, AmdWithoutDebugfsSaysHowToGetIt) {
    Snapshot snapshot;
    snapshot.gpus = {drm(0, Vendor::amd, "0000:03:00.0")};
    ResetFacts facts = root_with_nvidia_smi();
    facts.drivers[0] = "amdgpu";
    facts.amd[0] = {std::nullopt, "/sys/kernel/debug/dri is missing: debugfs is not mounted"};
    ResetPlan plan = build_reset_plan(snapshot, gpus({0}), facts);
    EXPECT_EQ(plan.block, ResetBlock::unsupported);
    EXPECT_NE(plan.why.find("debugfs is not mounted"), std::string::npos) << plan.why;
    EXPECT_NE(plan.advice->find("mount -t debugfs"), std::string::npos);
}

TEST(ResetPlan, MigPersistenceAndALostGpuAreNotes) {
    Snapshot snapshot;
    snapshot.gpus = {nvidia(0, "0000:18:00.0")};
    snapshot.gpus[0].reading.mig_mode = true;
    snapshot.gpus[0].reading.persistence_mode = true;
    snapshot.gpus[0].reading.lost = true;
    ResetPlan plan = build_reset_plan(snapshot, gpus({0}), root_with_nvidia_smi());
    EXPECT_EQ(plan.decision, ResetDecision::reset);
    const auto& notes = plan.gpus[0].notes;
    ASSERT_EQ(notes.size(), 3u);
    EXPECT_NE(notes[0].find("lost"), std::string::npos);
    EXPECT_NE(notes[1].find("MIG"), std::string::npos);
    EXPECT_NE(notes[2].find("nvidia-smi -pm 0 -i 0000:18:00.0"), std::string::npos);
    EXPECT_TRUE(plan.gpus[0].lost);
    EXPECT_EQ(plan.gpus[0].mig_mode, true);
}

TEST(ResetPlan, NvmlArchitectureNamesAndTheAmpereLine) {
    EXPECT_EQ(nvml_architecture_name(kNvmlArchVolta), "volta");
    EXPECT_EQ(nvml_architecture_name(kNvmlArchHopper), "hopper");
    EXPECT_EQ(nvml_architecture_name(kNvmlArchUnknown), std::nullopt);
    EXPECT_EQ(nvml_architecture_from_name("ampere"), kNvmlArchAmpere);
    EXPECT_TRUE(nvlink_peers_reset_together(kNvmlArchPascal));
    EXPECT_TRUE(nvlink_peers_reset_together(kNvmlArchTuring));
    EXPECT_FALSE(nvlink_peers_reset_together(kNvmlArchAmpere));
    EXPECT_FALSE(nvlink_peers_reset_together(kNvmlArchBlackwell));
    EXPECT_FALSE(nvlink_peers_reset_together(kNvmlArchUnknown));
}

}  // namespace
}  // namespace gpukill

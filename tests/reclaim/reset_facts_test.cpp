// Gathering the reset preflight's facts: PATH search, capabilities, XGMI hive ids, and the
// amdgpu recovery file on a sysfs tree laid out as the kernel does (symlinks included).
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "host/run_program.hpp"
#include "reclaim/reset_facts.hpp"

namespace gpukill {
namespace {

namespace fs = std::filesystem;

class SysfsTree {
  public:
    SysfsTree() {
        std::string pattern = (fs::temp_directory_path() / "reset-sysfs-XXXXXX").string();
        if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp");
        root_ = pattern;
    }
    ~SysfsTree() {
        std::error_code ignored;
        fs::remove_all(root_, ignored);
    }
    std::string root() const { return root_.string(); }

    // An amdgpu PCI device as cardN, with its driver link and optional hive id.
    void amd_gpu(const std::string& bus, unsigned card, const std::string& hive = "") {
        const fs::path device = root_ / "devices/pci0000:00/0000:00:01.0" / bus;
        fs::create_directories(device);
        fs::create_directories(root_ / "bus/pci/drivers/amdgpu");
        fs::create_directories(root_ / "bus/pci/devices");
        fs::create_directory_symlink(device, root_ / "bus/pci/devices" / bus);
        fs::create_directory_symlink(root_ / "bus/pci/drivers/amdgpu", device / "driver");
        if (!hive.empty()) std::ofstream(device / "xgmi_hive_id") << hive << "\n";
        const fs::path card_dir = root_ / "devices/drm" / ("card" + std::to_string(card));
        fs::create_directories(card_dir);
        fs::create_directory_symlink(device, card_dir / "device");
        fs::create_directories(root_ / "class/drm");
        fs::create_directory_symlink(card_dir,
                                     root_ / "class/drm" / ("card" + std::to_string(card)));
    }

    void debugfs_entry(const std::string& dir) {
        fs::create_directories(root_ / "kernel/debug/dri" / dir);
        std::ofstream(root_ / "kernel/debug/dri" / dir / "amdgpu_gpu_recover") << "";
    }

  private:
    fs::path root_;
};

Snapshot amd_snapshot(const std::vector<std::string>& buses) {
    Snapshot snapshot;
    for (unsigned i = 0; i < buses.size(); ++i) {
        Gpu gpu;
        gpu.index = i;
        gpu.reading.vendor = Vendor::amd;
        gpu.reading.backend = "drm";
        gpu.reading.pci_bus_id = buses[i];
        snapshot.gpus.push_back(gpu);
    }
    return snapshot;
}

TEST(ResetFacts, FindsTheFirstExecutableOnThePath) {
    const std::set<std::string> present = {"/opt/nvidia/bin/nvidia-smi", "/usr/bin/nvidia-smi",
                                           "./nvidia-smi"};
    auto executable = [&](const std::string& path) { return present.contains(path); };
    EXPECT_EQ(find_in_path("nvidia-smi", "/usr/local/bin:/opt/nvidia/bin:/usr/bin", executable),
              "/opt/nvidia/bin/nvidia-smi");
    EXPECT_EQ(find_in_path("nvidia-smi", "/sbin::/usr/bin", executable), "./nvidia-smi");
    EXPECT_EQ(find_in_path("nvidia-smi", "/sbin:/bin", executable), std::nullopt);
}

TEST(ResetFacts, CapSysAdminIsBit21) {
    EXPECT_TRUE(reclaim::has_cap_sys_admin(1ULL << 21));
    EXPECT_TRUE(reclaim::has_cap_sys_admin(0x000001ffffffffffULL));
    EXPECT_FALSE(reclaim::has_cap_sys_admin(1ULL << 5));  // CAP_KILL alone
}

TEST(ResetFacts, XgmiHiveIds) {
    EXPECT_EQ(reclaim::parse_xgmi_hive_id("0x52a4c1e3f8d7b6a0\n"), "0x52a4c1e3f8d7b6a0");
    EXPECT_EQ(reclaim::parse_xgmi_hive_id("5954451826183442069\n"), "5954451826183442069");
    EXPECT_EQ(reclaim::parse_xgmi_hive_id("0\n"), std::nullopt);
    EXPECT_EQ(reclaim::parse_xgmi_hive_id("0x0"), std::nullopt);
    EXPECT_EQ(reclaim::parse_xgmi_hive_id(""), std::nullopt);
    EXPECT_EQ(reclaim::parse_xgmi_hive_id("hive"), std::nullopt);
}

TEST(ResetFacts, AmdgpuRecoveryByCardMinorDriverAndHive) {
    SysfsTree tree;
    tree.amd_gpu("0000:03:00.0", 1, "0x1234abcd");
    tree.debugfs_entry("1");
    HostRoots roots{.procfs = "/proc", .sysfs = tree.root(), .devfs = "/dev"};
    auto facts = reclaim::gather_reset_facts(amd_snapshot({"0000:03:00.0"}), roots, {});
    EXPECT_EQ(facts.drivers.at(0), "amdgpu");
    ASSERT_TRUE(facts.amd.at(0).path.has_value()) << facts.amd.at(0).why_not;
    EXPECT_EQ(*facts.amd.at(0).path, tree.root() + "/kernel/debug/dri/1/amdgpu_gpu_recover");
    EXPECT_EQ(facts.xgmi_hives.at(0), "0x1234abcd");
}

TEST(ResetFacts, NewerKernelsNameTheDebugfsDirectoryByPciAddress) {
    SysfsTree tree;
    tree.amd_gpu("0000:03:00.0", 0);
    tree.debugfs_entry("0000:03:00.0");
    HostRoots roots{.procfs = "/proc", .sysfs = tree.root(), .devfs = "/dev"};
    auto facts = reclaim::gather_reset_facts(amd_snapshot({"0000:03:00.0"}), roots, {});
    ASSERT_TRUE(facts.amd.at(0).path.has_value()) << facts.amd.at(0).why_not;
    EXPECT_EQ(*facts.amd.at(0).path,
              tree.root() + "/kernel/debug/dri/0000:03:00.0/amdgpu_gpu_recover");
    EXPECT_FALSE(facts.xgmi_hives.contains(0));
}

TEST(ResetFacts, WithoutDebugfsTheReasonSaysSo) {
    SysfsTree tree;
    tree.amd_gpu("0000:03:00.0", 0);
    HostRoots roots{.procfs = "/proc", .sysfs = tree.root(), .devfs = "/dev"};
    auto facts = reclaim::gather_reset_facts(amd_snapshot({"0000:03:00.0"}), roots, {});
    EXPECT_FALSE(facts.amd.at(0).path.has_value());
    EXPECT_NE(facts.amd.at(0).why_not.find("debugfs is not mounted"), std::string::npos);
}

TEST(ResetFacts, AnExplicitNvidiaSmiMustBeExecutable) {
    HostRoots roots{.procfs = "/proc", .sysfs = "/nonexistent", .devfs = "/dev"};
    auto missing = reclaim::gather_reset_facts(
        Snapshot{}, roots, {.nvidia_smi = "/nonexistent/nvidia-smi", .path_env = "/usr/bin"});
    EXPECT_FALSE(missing.nvidia_smi.has_value());
    EXPECT_NE(missing.nvidia_smi_missing.find("/nonexistent/nvidia-smi"), std::string::npos);
    auto found = reclaim::gather_reset_facts(Snapshot{}, roots,
                                             {.nvidia_smi = "/bin/sh", .path_env = std::nullopt});
    EXPECT_EQ(found.nvidia_smi, "/bin/sh");
}

}  // namespace
}  // namespace gpukill

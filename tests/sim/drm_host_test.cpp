// gpusim's DRM GPUs: the sysfs and devfs layout `init` writes (the kernel's, link for link),
// the scenario's drm_gpus section, and `run --drm` workloads holding the render node.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "sim_harness.hpp"
#include "workload_guard.hpp"

namespace {

using gpusim_test::gpusim;
using gpusim_test::read_text;
using gpusim_test::TempDir;
namespace fs = std::filesystem;

constexpr const char* kMixedHost = R"(
gpu_count: 1
gpus:
  - pci_bus_id: "0000:18:00.0"
drm_gpus:
  - vendor: amd
    pci_bus_id: "0000:03:00.0"
    memory_used: 2G
    busy_percent: 37
    temperature_celsius: 51
    power_watts: 120.5
  - vendor: intel
    pci_bus_id: "0000:9A:00.0"
)";

std::string link_text(const fs::path& path) {
    std::error_code error;
    return fs::read_symlink(path, error).string();
}

bool is_world_writable_file(const fs::path& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
           (info.st_mode & 0777) == 0666;
}

TEST(DrmHost, ClassDrmLinksIntoThePciDeviceAsTheKernelDoes) {
    TempDir tmp;
    const fs::path root = tmp / "host";
    ASSERT_NO_FATAL_FAILURE(gpusim_test::init_root(root, kMixedHost));
    const fs::path sys = root / "sys";
    EXPECT_EQ(link_text(sys / "class/drm/card0"),
              "../../devices/pci0000:00/0000:03:00.0/drm/card0");
    EXPECT_EQ(link_text(sys / "class/drm/renderD128"),
              "../../devices/pci0000:00/0000:03:00.0/drm/renderD128");
    EXPECT_EQ(link_text(sys / "class/drm/card1"),
              "../../devices/pci0000:00/0000:9a:00.0/drm/card1");
    EXPECT_EQ(link_text(sys / "class/drm/renderD129"),
              "../../devices/pci0000:00/0000:9a:00.0/drm/renderD129");
    EXPECT_EQ(link_text(sys / "devices/pci0000:00/0000:03:00.0/drm/card0/device"),
              "../../../0000:03:00.0");
    EXPECT_EQ(fs::canonical(sys / "class/drm/card0/device"),
              fs::canonical(sys / "devices/pci0000:00/0000:03:00.0"));
    EXPECT_EQ(read_text(sys / "class/drm/card0/dev"), "226:0\n");
    EXPECT_EQ(read_text(sys / "class/drm/renderD129/dev"), "226:129\n");
    EXPECT_EQ(read_text(sys / "class/drm/version"), "drm 1.1.0 20060810\n");
}

TEST(DrmHost, PciAttributesAndTheDriverLink) {
    TempDir tmp;
    const fs::path root = tmp / "host";
    ASSERT_NO_FATAL_FAILURE(gpusim_test::init_root(root, kMixedHost));
    const fs::path amd = root / "sys/class/drm/card0/device";
    EXPECT_EQ(read_text(amd / "vendor"), "0x1002\n");
    EXPECT_EQ(read_text(amd / "device"), "0x740f\n");
    EXPECT_EQ(read_text(amd / "class"), "0x038000\n");
    EXPECT_EQ(link_text(amd / "driver"), "../../../bus/pci/drivers/amdgpu");
    EXPECT_TRUE(fs::is_directory(amd / "driver"));
    EXPECT_EQ(read_text(amd / "power/runtime_status"), "active\n");
    const fs::path intel = root / "sys/class/drm/card1/device";
    EXPECT_EQ(read_text(intel / "vendor"), "0x8086\n");
    EXPECT_EQ(link_text(intel / "driver"), "../../../bus/pci/drivers/i915");
}

TEST(DrmHost, AmdgpuPublishesMemoryBusyAndHwmonInItsUnits) {
    TempDir tmp;
    const fs::path root = tmp / "host";
    ASSERT_NO_FATAL_FAILURE(gpusim_test::init_root(root, kMixedHost));
    const fs::path amd = root / "sys/class/drm/card0/device";
    EXPECT_EQ(read_text(amd / "mem_info_vram_total"), std::to_string(64ULL << 30) + "\n");
    EXPECT_EQ(read_text(amd / "mem_info_vram_used"), std::to_string(2ULL << 30) + "\n");
    EXPECT_EQ(read_text(amd / "gpu_busy_percent"), "37\n");
    EXPECT_EQ(read_text(amd / "product_name"), "AMD Instinct MI210\n");
    EXPECT_EQ(read_text(amd / "unique_id").size(), 17U);  // 16 hex digits and a newline
    const fs::path hwmon = amd / "hwmon/hwmon0";
    EXPECT_EQ(read_text(hwmon / "name"), "amdgpu\n");
    EXPECT_EQ(read_text(hwmon / "temp1_input"), "51000\n");  // millidegrees
    EXPECT_EQ(read_text(hwmon / "temp1_label"), "edge\n");
    EXPECT_EQ(read_text(hwmon / "power1_average"), "120500000\n");  // microwatts
    EXPECT_EQ(read_text(hwmon / "power1_cap"), "300000000\n");
    EXPECT_EQ(link_text(root / "sys/class/hwmon/hwmon0"),
              "../../devices/pci0000:00/0000:03:00.0/hwmon/hwmon0");
}

TEST(DrmHost, IntelHasEnergyInsteadOfPowerAndNoAmdgpuFiles) {
    TempDir tmp;
    const fs::path root = tmp / "host";
    ASSERT_NO_FATAL_FAILURE(gpusim_test::init_root(root, kMixedHost));
    const fs::path intel = root / "sys/class/drm/card1/device";
    const fs::path hwmon = intel / "hwmon/hwmon1";
    EXPECT_EQ(read_text(hwmon / "name"), "i915\n");
    EXPECT_TRUE(fs::exists(hwmon / "energy1_input"));
    EXPECT_TRUE(fs::exists(hwmon / "power1_max"));
    EXPECT_FALSE(fs::exists(hwmon / "power1_average"));
    EXPECT_FALSE(fs::exists(hwmon / "temp1_input"));
    EXPECT_FALSE(fs::exists(intel / "mem_info_vram_total"));
    EXPECT_FALSE(fs::exists(intel / "gpu_busy_percent"));
}

TEST(DrmHost, KfdTopologyLocatesEachAmdGpuOnPci) {
    TempDir tmp;
    const fs::path root = tmp / "host";
    ASSERT_NO_FATAL_FAILURE(gpusim_test::init_root(root, kMixedHost));
    const fs::path kfd = root / "sys/class/kfd/kfd";
    EXPECT_EQ(link_text(kfd), "../../devices/virtual/kfd/kfd");
    EXPECT_EQ(read_text(kfd / "topology/nodes/0/gpu_id"), "0\n");  // the CPU
    const std::string gpu_id = read_text(kfd / "topology/nodes/1/gpu_id");
    EXPECT_NE(gpu_id, "0\n");
    const std::string properties = read_text(kfd / "topology/nodes/1/properties");
    EXPECT_NE(properties.find("location_id 768\n"), std::string::npos) << properties;  // 03:00.0
    EXPECT_NE(properties.find("domain 0\n"), std::string::npos);
    EXPECT_NE(properties.find("drm_render_minor 128\n"), std::string::npos);
    EXPECT_FALSE(fs::exists(kfd / "topology/nodes/2"));  // the Intel GPU is not kfd's
    EXPECT_TRUE(fs::is_directory(kfd / "proc"));
    EXPECT_TRUE(is_world_writable_file(root / "dev/kfd"));
    for (const char* node : {"dri/card0", "dri/card1", "dri/renderD128", "dri/renderD129"}) {
        EXPECT_TRUE(is_world_writable_file(root / "dev" / node)) << node;
    }
}

TEST(DrmHost, NullMetricsAndNoHwmonLeaveTheFilesOut) {
    TempDir tmp;
    const fs::path root = tmp / "host";
    ASSERT_NO_FATAL_FAILURE(gpusim_test::init_root(root, R"(
gpu_count: 0
drm_gpus:
  - vendor: amd
    busy_percent: null
    product_name: null
    no_hwmon: true
)"));
    const fs::path amd = root / "sys/class/drm/card0/device";
    EXPECT_EQ(link_text(root / "sys/class/drm/card0"),
              "../../devices/pci0000:00/0000:03:00.0/drm/card0");  // the default address
    EXPECT_FALSE(fs::exists(amd / "gpu_busy_percent"));
    EXPECT_FALSE(fs::exists(amd / "product_name"));
    EXPECT_FALSE(fs::exists(amd / "hwmon"));
    EXPECT_TRUE(fs::exists(amd / "mem_info_vram_total"));
}

TEST(DrmHost, AHostWithoutDrmGpusStillHasItsOwnEmptySysfs) {
    TempDir tmp;
    const fs::path root = tmp / "host";
    ASSERT_NO_FATAL_FAILURE(gpusim_test::init_root(root));
    const auto env = gpusim({"env", "--root", root.string()});
    ASSERT_EQ(env.exit_code, 0) << env.err;
    EXPECT_NE(env.out.find("export GPUKILL_SYSFS='" + (root / "sys").string() + "'\n"),
              std::string::npos)
        << env.out;
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(root / "sys/class/drm")) {
        names.push_back(entry.path().filename().string());
    }
    EXPECT_EQ(names, std::vector<std::string>{"version"});
    EXPECT_FALSE(fs::exists(root / "dev/dri"));
    EXPECT_FALSE(fs::exists(root / "dev/kfd"));
}

TEST(DrmHost, ForcedReinitRemovesTheOldDrmGpus) {
    TempDir tmp;
    const fs::path root = tmp / "host";
    ASSERT_NO_FATAL_FAILURE(gpusim_test::init_root(root, kMixedHost));
    const auto again = gpusim({"init", "--root", root.string(), "--force"});
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_FALSE(fs::exists(root / "dev/dri"));
    EXPECT_FALSE(fs::exists(root / "dev/kfd"));
    EXPECT_FALSE(fs::exists(root / "sys/class/drm/card0"));
    EXPECT_FALSE(fs::exists(root / "sys/class/kfd"));
}

TEST(DrmHost, ARunDrmWorkloadHoldsTheRenderNodeAndKfd) {
    TempDir tmp;
    const fs::path root = tmp / "host";
    ASSERT_NO_FATAL_FAILURE(gpusim_test::init_root(root, kMixedHost));
    gpusim_test::Workload amd({"--root", root.string(), "--drm", "0", "--workers", "1"});
    ASSERT_TRUE(amd.ready()) << amd.failure_text();
    gpusim_test::Workload intel({"--root", root.string(), "--drm", "1"});
    ASSERT_TRUE(intel.ready()) << intel.failure_text();

    const auto ready = nlohmann::json::parse(amd.ready_line());
    EXPECT_EQ(ready["drm_gpu"], 0);
    EXPECT_EQ(ready["workers"].size(), 1U);
    EXPECT_FALSE(ready.contains("memory_bytes"));
    EXPECT_EQ(ready["device_files"], nlohmann::json({(root / "dev/dri/renderD128").string(),
                                                     (root / "dev/kfd").string()}));

    auto held = [](pid_t pid) {
        std::vector<std::string> targets;
        for (const auto& fd : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
            std::error_code error;
            targets.push_back(fs::read_symlink(fd.path(), error).string());
        }
        return targets;
    };
    auto holds = [&](pid_t pid, const fs::path& node) {
        const auto targets = held(pid);
        return std::find(targets.begin(), targets.end(), node.string()) != targets.end();
    };
    EXPECT_TRUE(holds(amd.pid(), root / "dev/dri/renderD128"));
    EXPECT_TRUE(holds(amd.pid(), root / "dev/kfd"));
    EXPECT_TRUE(holds(amd.worker_pids().at(0), root / "dev/dri/renderD128"));  // inherited
    EXPECT_TRUE(holds(intel.pid(), root / "dev/dri/renderD129"));
    EXPECT_FALSE(holds(intel.pid(), root / "dev/kfd"));  // only amdgpu has a compute node
    EXPECT_FALSE(holds(intel.pid(), root / "dev/nvidiactl"));
}

TEST(DrmHost, TheMixedVendorsExampleIsValid) {
    TempDir tmp;
    const auto result = gpusim({"init", "--root", (tmp / "host").string(), "--scenario",
                                std::string(GPUSIM_SCENARIO_DIR) + "/mixed_vendors.yaml"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(fs::exists(tmp / "host/sys/class/drm/card2"));
    EXPECT_FALSE(fs::exists(tmp / "host/sys/class/drm/card2/device/hwmon"));
    EXPECT_TRUE(fs::exists(tmp / "host/sys/class/kfd/kfd/topology/nodes/2/gpu_id"));
}

TEST(DrmHost, RunDrmArgumentsAreChecked) {
    TempDir tmp;
    const fs::path root = tmp / "host";
    ASSERT_NO_FATAL_FAILURE(gpusim_test::init_root(root, kMixedHost));
    const std::string r = root.string();
    EXPECT_EQ(gpusim({"run", "--root", r, "--drm", "2"}).exit_code, 2);  // no such DRM GPU
    EXPECT_EQ(gpusim({"run", "--root", r, "--drm", "0", "--mem", "1G"}).exit_code, 3);
    EXPECT_EQ(gpusim({"run", "--root", r, "--drm", "0", "--gpu", "0"}).exit_code, 3);
    EXPECT_EQ(gpusim({"run", "--root", r, "--drm", "0", "--util", "50"}).exit_code, 3);
    const auto neither = gpusim({"run", "--root", r});
    EXPECT_EQ(neither.exit_code, 3);
    EXPECT_NE(neither.err.find("--drm"), std::string::npos) << neither.err;
}

struct BadDrmScenario {
    const char* label;
    const char* yaml;
    const char* position;
    const char* mentions;
};

void PrintTo(const BadDrmScenario& bad, std::ostream* out) {
    *out << bad.label;
}

class BadDrmScenarioTest : public testing::TestWithParam<BadDrmScenario> {};

TEST_P(BadDrmScenarioTest, IsOneLineWithPositionAndExitThree) {
    const BadDrmScenario& param = GetParam();
    TempDir tmp;
    const fs::path file = tmp / "scenario.yaml";
    gpusim_test::write_text(file, param.yaml);
    const auto result =
        gpusim({"init", "--root", (tmp / "host").string(), "--scenario", file.string()});
    EXPECT_EQ(result.exit_code, 3);
    const auto lines = gpusim_test::split_lines(result.err);
    ASSERT_EQ(lines.size(), 1U) << result.err;
    const std::string prefix = "gpusim: scenario " + file.string() + ":" + param.position + ":";
    EXPECT_TRUE(lines[0].starts_with(prefix)) << lines[0];
    EXPECT_NE(lines[0].find(param.mentions), std::string::npos) << lines[0];
    EXPECT_FALSE(fs::exists(tmp / "host"));
}

INSTANTIATE_TEST_SUITE_P(
    DrmScenario, BadDrmScenarioTest,
    testing::Values(
        BadDrmScenario{"no_vendor", "drm_gpus:\n  - driver: amdgpu\n", "2:5", "vendor"},
        BadDrmScenario{"bad_vendor", "drm_gpus:\n  - vendor: nvidia\n", "2:13", "amd, intel"},
        BadDrmScenario{"other_needs_driver", "drm_gpus:\n  - {vendor: other, vendor_id: 0x1af4}\n",
                       "2:5", "driver"},
        BadDrmScenario{"amdgpu_only_file", "drm_gpus:\n  - vendor: intel\n    memory_total: 16G\n",
                       "3:19", "amdgpu only"},
        BadDrmScenario{"used_above_total",
                       "drm_gpus:\n  - vendor: amd\n    memory_total: 8G\n    memory_used: 9G\n",
                       "4:18", "memory_used"},
        BadDrmScenario{"bus_of_an_nvidia_gpu",
                       "gpus:\n  - pci_bus_id: 0000:18:00.0\ndrm_gpus:\n  - vendor: amd\n"
                       "    pci_bus_id: 0000:18:00.0\n",
                       "4:5", "duplicate pci_bus_id"},
        BadDrmScenario{"unknown_key", "drm_gpus:\n  - vendor: amd\n    vram: 8G\n", "3:5", "vram"},
        BadDrmScenario{"busy_over_100", "drm_gpus:\n  - vendor: amd\n    busy_percent: 101\n",
                       "3:19", "100"}),
    [](const testing::TestParamInfo<BadDrmScenario>& param_info) {
        return std::string(param_info.param.label);
    });

}  // namespace

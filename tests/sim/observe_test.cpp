// Monitoring clients on the simulated host: `gpusim observe` and the NVML library itself
// hold the control and GPU nodes and nothing else (no nvidia-uvm, no allocation), which
// nvidia-smi -r counts as clients; and GPUs whose device minors are not their indices.
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "nvml_fixture.hpp"
#include "sim_harness.hpp"
#include "workload_guard.hpp"

namespace {

namespace fs = std::filesystem;
using gpusim_test::gpusim;
using gpusim_test::init_root;
using gpusim_test::TempDir;

// The files under `dev` that process `pid` has open, by file name.
std::set<std::string> open_device_files(pid_t pid, const fs::path& dev) {
    std::set<std::string> names;
    const fs::path fds = "/proc/" + std::to_string(pid) + "/fd";
    for (const auto& entry : fs::directory_iterator(fds)) {
        std::error_code ignored;
        const fs::path target = fs::read_symlink(entry.path(), ignored);
        if (target.parent_path() == dev) names.insert(target.filename().string());
    }
    return names;
}

TEST(Observe, HoldsTheControlAndGpuNodesLikeAnNvmlClientAndNothingElse) {
    TempDir dir;
    const fs::path root = dir / "host";
    ASSERT_NO_FATAL_FAILURE(init_root(root));
    gpusim_test::Workload observer({"--root", root.string(), "--name", "nv-hostengine"}, true,
                                   "observe");
    ASSERT_TRUE(observer.ready()) << observer.failure_text();
    const auto line = nlohmann::json::parse(observer.ready_line());
    EXPECT_EQ(line["device_files"],
              (nlohmann::json{(root / "dev/nvidiactl").string(), (root / "dev/nvidia0").string(),
                              (root / "dev/nvidia1").string()}));
    EXPECT_EQ(open_device_files(observer.pid(), root / "dev"),
              (std::set<std::string>{"nvidiactl", "nvidia0", "nvidia1"}));
    // No allocation: the driver has nothing to list and nothing is used.
    const auto status =
        nlohmann::json::parse(gpusim({"status", "--root", root.string(), "--json"}).out);
    for (const auto& gpu : status["gpus"]) {
        EXPECT_TRUE(gpu["allocations"].empty());
        EXPECT_EQ(gpu["memory_used_bytes"], 0);
    }
}

TEST(Observe, OneGpuOnlyAndAGpuThatIsNotThereIsRefused) {
    TempDir dir;
    const fs::path root = dir / "host";
    ASSERT_NO_FATAL_FAILURE(init_root(root));
    gpusim_test::Workload one({"--root", root.string(), "--gpu", "1"}, true, "observe");
    ASSERT_TRUE(one.ready()) << one.failure_text();
    EXPECT_EQ(open_device_files(one.pid(), root / "dev"),
              (std::set<std::string>{"nvidiactl", "nvidia1"}));
    const auto missing = gpusim({"observe", "--root", root.string(), "--gpu", "7"});
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_NE(missing.err.find("no GPU 7"), std::string::npos) << missing.err;
}

class NvmlObserverTest : public gpusim_test::NvmlTest {};

TEST_F(NvmlObserverTest, TheLibraryHoldsTheNodesFromInitToShutdownButNotUvm) {
    ASSERT_NO_FATAL_FAILURE(start());
    const fs::path dev = root_ / "dev";
    EXPECT_EQ(open_device_files(::getpid(), dev),
              (std::set<std::string>{"nvidiactl", "nvidia0", "nvidia1"}));
    nvml_->shutdown();
    initialised_ = false;
    EXPECT_TRUE(open_device_files(::getpid(), dev).empty());
}

TEST_F(NvmlObserverTest, DeviceMinorsNeedNotBeIndices) {
    ASSERT_NO_FATAL_FAILURE(start("gpus:\n  - {minor: 1}\n  - {minor: 0}\n"));
    using GetUnsigned = nvml_client::Return(nvml_client::Device, unsigned int*);
    for (unsigned index : {0U, 1U}) {
        unsigned int minor = 9;
        ASSERT_EQ(nvml().fn<GetUnsigned>("nvmlDeviceGetMinorNumber")(nvml().device(index), &minor),
                  nvml_client::kSuccess);
        EXPECT_EQ(minor, 1 - index);
    }
    // GPU 0's workload opens /dev/nvidia1, its minor.
    gpusim_test::Workload job({"--root", root_.string(), "--gpu", "0", "--mem", "1G"});
    ASSERT_TRUE(job.ready()) << job.failure_text();
    const auto held = open_device_files(job.pid(), root_ / "dev");
    EXPECT_TRUE(held.contains("nvidia1") && !held.contains("nvidia0")) << job.ready_line();
}

TEST(Scenario, DuplicateMinorsAreRefused) {
    TempDir dir;
    gpusim_test::write_text(dir / "s.yaml", "gpus:\n  - {minor: 3}\n  - {minor: 3}\n");
    const auto result = gpusim(
        {"init", "--root", (dir / "host").string(), "--scenario", (dir / "s.yaml").string()});
    EXPECT_EQ(result.exit_code, 3);
    EXPECT_NE(result.err.find("duplicate minor 3"), std::string::npos) << result.err;
}

}  // namespace

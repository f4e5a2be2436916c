#pragma once
// A test fixture with an initialised simulated host and the NVML library loaded against it.

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <vector>

#include "nvml_client.hpp"
#include "sim_harness.hpp"

namespace gpusim_test {

class NvmlTest : public testing::Test {
  protected:
    // Creates the host from `scenario_yaml` (default host when empty), points GPUSIM_ROOT at it
    // and loads `library`. Does not call nvmlInit.
    void make_host(const std::string& scenario_yaml = {},
                   const std::filesystem::path& library = GPUSIM_NVML_LIBRARY) {
        root_ = tmp_ / "host";
        ASSERT_NO_FATAL_FAILURE(init_root(root_, scenario_yaml));
        ::setenv("GPUSIM_ROOT", root_.c_str(), 1);
        nvml_ = std::make_unique<nvml_client::Library>(library);
        ASSERT_TRUE(nvml_->loaded()) << nvml_->load_error();
    }

    // make_host() and nvmlInit_v2.
    void start(const std::string& scenario_yaml = {},
               const std::filesystem::path& library = GPUSIM_NVML_LIBRARY) {
        ASSERT_NO_FATAL_FAILURE(make_host(scenario_yaml, library));
        ASSERT_EQ(nvml_->init(), nvml_client::kSuccess);
        initialised_ = true;
    }

    void TearDown() override {
        if (initialised_) nvml_->shutdown();
        nvml_.reset();
        ::unsetenv("GPUSIM_ROOT");
    }

    const nvml_client::Library& nvml() const { return *nvml_; }

    // The compute process list of GPU `index` through _v3, with NVML's sizing handshake.
    std::vector<nvml_client::ProcessV2> processes(unsigned int index) const {
        using List =
            nvml_client::Return(nvml_client::Device, unsigned int*, nvml_client::ProcessV2*);
        const auto list = nvml_->fn<List>("nvmlDeviceGetComputeRunningProcesses_v3");
        const nvml_client::Device device = nvml_->device(index);
        unsigned int count = 0;
        const nvml_client::Return sizing = list(device, &count, nullptr);
        if (sizing == nvml_client::kSuccess) {
            EXPECT_EQ(count, 0U);
            return {};
        }
        EXPECT_EQ(sizing, nvml_client::kInsufficientSize);
        std::vector<nvml_client::ProcessV2> entries(count);
        EXPECT_EQ(list(device, &count, entries.data()), nvml_client::kSuccess);
        entries.resize(count);
        return entries;
    }

    // Used memory of GPU `index` (nvmlMemory_v2_t.used), or ~0 when the query fails.
    unsigned long long used(unsigned int index) const {
        nvml_client::MemoryV2 memory{};
        memory.version = nvml_client::kMemoryV2Version;
        const auto get =
            nvml_->fn<nvml_client::Return(nvml_client::Device, nvml_client::MemoryV2*)>(
                "nvmlDeviceGetMemoryInfo_v2");
        return get(nvml_->device(index), &memory) == nvml_client::kSuccess ? memory.used : ~0ULL;
    }
    const std::filesystem::path& root() const { return root_; }
    std::string root_arg() const { return root_.string(); }

    TempDir tmp_;
    std::filesystem::path root_;
    std::unique_ptr<nvml_client::Library> nvml_;
    bool initialised_ = false;
};

}  // namespace gpusim_test

// AMD and Intel GPUs (gpusim's DRM GPUs, read by gpukill's DRM backend from the
// simulated sysfs) next to NVIDIA ones: one numbering, selectors, holders found by their
// render node, and a real process holding /dev/dri stopped by `gpukill kill`.
#include <gtest/gtest.h>

#include <algorithm>

#include "support.hpp"

namespace gpukill::testing {
namespace {

// PCI order: Intel 03, NVIDIA 18, NVIDIA 9a, AMD c1. The AMD GPU is last, so a numbering
// that counted only its own backend's GPUs would be caught.
constexpr const char* kMixedHost = R"(
gpu_count: 2
gpus:
  - pci_bus_id: "0000:9a:00.0"
  - pci_bus_id: "0000:18:00.0"
drm_gpus:
  - vendor: amd
    pci_bus_id: "0000:c1:00.0"
    memory_total: 64G
    memory_used: 3G
    busy_percent: 40
  - vendor: intel
    pci_bus_id: "0000:03:00.0"
)";

constexpr unsigned kIntel = 0, kFirstNvidia = 1, kSecondNvidia = 2, kAmd = 3;
constexpr std::uint64_t GiB = 1ULL << 30;

const nlohmann::json* find_process(const nlohmann::json& doc, pid_t pid) {
    for (const auto& p : doc["processes"]) {
        if (p["pid"] == pid) return &p;
    }
    return nullptr;
}

std::vector<std::pair<unsigned, std::string>> numbering(const nlohmann::json& doc) {
    std::vector<std::pair<unsigned, std::string>> pairs;
    for (const auto& gpu : doc["gpus"]) {
        pairs.emplace_back(gpu["index"].get<unsigned>(), gpu["pci_bus_id"].get<std::string>());
    }
    return pairs;
}

TEST(DrmList, OneNumberingAcrossVendorsOrderedByPciAddress) {
    SimulatedHost host(kMixedHost);
    auto doc = host.list_json();
    ASSERT_EQ(doc["gpus"].size(), 4u) << doc.dump(2);
    using Pair = std::pair<unsigned, std::string>;
    EXPECT_EQ(numbering(doc), (std::vector<Pair>{{kIntel, "0000:03:00.0"},
                                                 {kFirstNvidia, "0000:18:00.0"},
                                                 {kSecondNvidia, "0000:9a:00.0"},
                                                 {kAmd, "0000:c1:00.0"}}));
    EXPECT_EQ(doc["gpus"][kIntel]["vendor"], "intel");
    EXPECT_EQ(doc["gpus"][kIntel]["backend"], "drm");
    EXPECT_EQ(doc["gpus"][kFirstNvidia]["vendor"], "nvidia");
    EXPECT_EQ(doc["gpus"][kFirstNvidia]["backend"], "nvml");
    EXPECT_EQ(doc["gpus"][kAmd]["vendor"], "amd");
    EXPECT_EQ(doc["gpus"][kAmd]["backend"], "drm");
    EXPECT_EQ(doc["gpus"][kAmd]["name"], "AMD Instinct MI210");
    EXPECT_EQ(doc["gpus"][kAmd]["memory_total_bytes"], 64 * GiB);
    EXPECT_EQ(doc["gpus"][kAmd]["memory_used_bytes"], 3 * GiB);
    EXPECT_EQ(doc["gpus"][kAmd]["utilization_percent"], 40);
    // The Intel GPU publishes no memory or busy figure: unknown, not zero.
    EXPECT_TRUE(doc["gpus"][kIntel]["memory_total_bytes"].is_null());
    EXPECT_TRUE(doc["gpus"][kIntel]["utilization_percent"].is_null());

    // Stable: the same numbering on every run.
    for (int run = 0; run < 2; ++run) EXPECT_EQ(numbering(host.list_json()), numbering(doc));
}

TEST(DrmList, VendorFilterKeepsOnlyThatVendorAndItsGlobalIndex) {
    SimulatedHost host(kMixedHost);
    auto amd = host.list_json({"--vendor", "amd"});
    ASSERT_EQ(amd["gpus"].size(), 1u) << amd.dump(2);
    EXPECT_EQ(amd["gpus"][0]["vendor"], "amd");
    EXPECT_EQ(amd["gpus"][0]["pci_bus_id"], "0000:c1:00.0");
    EXPECT_EQ(amd["gpus"][0]["index"], kAmd) << "--vendor must not renumber the GPUs";

    auto intel = host.list_json({"--vendor", "intel"});
    ASSERT_EQ(intel["gpus"].size(), 1u);
    EXPECT_EQ(intel["gpus"][0]["index"], kIntel);
    auto nvidia = host.list_json({"--vendor", "nvidia"});
    EXPECT_EQ(nvidia["gpus"].size(), 2u);
}

TEST(DrmList, GpuSelectorTakesABusIdOrAnIndexOfAnyVendor) {
    SimulatedHost host(kMixedHost);
    for (const std::string selector : {"0000:c1:00.0", "c1:00.0", "3"}) {
        auto doc = host.list_json({"--gpu", selector});
        ASSERT_EQ(doc["gpus"].size(), 1u) << selector << ": " << doc.dump(2);
        EXPECT_EQ(doc["gpus"][0]["index"], kAmd) << selector;
        EXPECT_EQ(doc["gpus"][0]["vendor"], "amd") << selector;
    }
    auto intel = host.list_json({"--gpu", "0000:03:00.0"});
    ASSERT_EQ(intel["gpus"].size(), 1u);
    EXPECT_EQ(intel["gpus"][0]["index"], kIntel);
}

TEST(DrmList, AProcessHoldingTheRenderNodeIsListedByItsDeviceFile) {
    SimulatedHost host(kMixedHost);
    Workload rocm = host.run({"--drm", "0", "--workers", "1", "--name", "rocm_train"});
    Workload level_zero = host.run({"--drm", "1"});
    auto doc = host.list_json();

    const nlohmann::json* p = find_process(doc, rocm.pid());
    ASSERT_NE(p, nullptr) << doc.dump(2);
    EXPECT_EQ((*p)["name"], "rocm_train");
    ASSERT_EQ((*p)["gpus"].size(), 1u) << p->dump(2);
    const auto& use = (*p)["gpus"][0];
    EXPECT_EQ(use["index"], kAmd);
    EXPECT_EQ(use["seen_by"], nlohmann::json({"device_file"}));
    // A simulated node is a regular file: its fdinfo has no DRM usage stats, so the
    // process's memory and utilisation are unknown, never guessed.
    EXPECT_TRUE(use["memory_bytes"].is_null());
    EXPECT_TRUE(use["utilization_percent"].is_null());
    const std::string root = host.root();
    EXPECT_EQ((*p)["device_files"],
              nlohmann::json({root + "/dev/dri/renderD128", root + "/dev/kfd"}));

    const nlohmann::json* worker = find_process(doc, rocm.workers().at(0));
    ASSERT_NE(worker, nullptr);
    EXPECT_EQ((*worker)["gpus"][0]["index"], kAmd);

    const nlohmann::json* intel = find_process(doc, level_zero.pid());
    ASSERT_NE(intel, nullptr);
    ASSERT_EQ((*intel)["gpus"].size(), 1u);
    EXPECT_EQ((*intel)["gpus"][0]["index"], kIntel);

    EXPECT_EQ(doc["gpus"][kAmd]["process_count"], 2);
    EXPECT_EQ(doc["gpus"][kIntel]["process_count"], 1);
    EXPECT_EQ(doc["gpus"][kFirstNvidia]["process_count"], 0);
    EXPECT_EQ(doc["visibility"]["processes_fdinfo_denied"], 0);

    // --vendor amd keeps the AMD holders only.
    auto amd_only = host.list_json({"--vendor", "amd"});
    EXPECT_NE(find_process(amd_only, rocm.pid()), nullptr);
    EXPECT_EQ(find_process(amd_only, level_zero.pid()), nullptr);
}

TEST(DrmList, TheTableNamesVendorsAndShowsUnknownsAsDashes) {
    SimulatedHost host(kMixedHost);
    Workload rocm = host.run({"--drm", "0"});
    CommandResult r = host.gpukill({"list", "--details"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("VENDOR"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("amd (amdgpu)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("intel (i915)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("GPU%"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("3.0 GiB / 64.0 GiB"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(std::to_string(rocm.pid())), std::string::npos) << r.out;
}

TEST(DrmList, KillStopsAProcessHoldingASimulatedRenderNodeAndNoOther) {
    SimulatedHost host(kMixedHost);
    Workload target = host.run({"--drm", "0", "--name", "rocm_train"});
    Workload bystander_intel = host.run({"--drm", "1"});
    Workload bystander_nvidia = host.run({"--gpu", "0", "--mem", "1G"});

    CommandResult r = host.gpukill({"kill", "--pid", std::to_string(target.pid()), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    auto doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(doc["executed"], true);
    ASSERT_EQ(doc["targets"].size(), 1u) << doc.dump(2);
    EXPECT_EQ(doc["targets"][0]["pid"], target.pid());
    EXPECT_EQ(doc["targets"][0]["start_time_ticks"], target.start_time_ticks());
    EXPECT_EQ(doc["targets"][0]["outcome"], "terminated");
    EXPECT_EQ(doc["targets"][0]["gpus"], nlohmann::json({kAmd}));
    EXPECT_EQ(doc["exit_code"], 0);

    EXPECT_FALSE(process_alive(target.pid()));
    EXPECT_TRUE(process_alive(bystander_intel.pid()));
    EXPECT_TRUE(process_alive(bystander_nvidia.pid()));
    auto after = host.list_json();
    EXPECT_EQ(find_process(after, target.pid()), nullptr);
    EXPECT_NE(find_process(after, bystander_intel.pid()), nullptr);
}

TEST(DrmList, KillByGpuTakesEveryHolderOfThatGpuOnly) {
    SimulatedHost host(kMixedHost);
    Workload job = host.run({"--drm", "0", "--workers", "2"});
    Workload bystander = host.run({"--drm", "1"});
    CommandResult r = host.gpukill({"kill", "--gpu", "0000:c1:00.0", "--batch", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    auto doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(doc["targets"].size(), 3u) << doc.dump(2);
    EXPECT_FALSE(process_alive(job.pid()));
    for (pid_t worker : job.workers()) EXPECT_FALSE(process_alive(worker));
    EXPECT_TRUE(process_alive(bystander.pid()));
}

}  // namespace
}  // namespace gpukill::testing

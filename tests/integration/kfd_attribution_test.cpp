// Which AMD GPU a ROCm process uses, on a simulated host with two AMD GPUs: /dev/kfd serves
// both, so a process is listed where its render node or kfd's sysfs places it, and on every
// AMD GPU, marked as uncertain, only when nothing does. `kill --gpu` never takes the latter.
#include <gtest/gtest.h>

#include "support.hpp"

namespace gpukill::testing {
namespace {

constexpr const char* kTwoAmdHost = R"(
gpu_count: 0
drm_gpus:
  - vendor: amd
    pci_bus_id: "0000:c1:00.0"
  - vendor: amd
    pci_bus_id: "0000:c2:00.0"
)";

constexpr unsigned kAmd0 = 0, kAmd1 = 1;
constexpr std::uint64_t kKfdGiB = 1ULL << 30;

const nlohmann::json* kfd_listed(const nlohmann::json& doc, pid_t pid) {
    for (const auto& p : doc["processes"]) {
        if (p["pid"] == pid) return &p;
    }
    return nullptr;
}

// The workload's entry in `gpukill list --json`; null when it is not listed.
nlohmann::json kfd_listing(const SimulatedHost& host, const Workload& job) {
    auto doc = host.list_json();
    const nlohmann::json* p = kfd_listed(doc, job.pid());
    return p == nullptr ? nlohmann::json() : *p;
}

// The kill document's entries for `pid` (targets and refusals).
std::vector<nlohmann::json> kfd_entries(const nlohmann::json& kill_doc, pid_t pid) {
    std::vector<nlohmann::json> entries;
    for (const auto& entry : kill_doc["targets"]) {
        if (entry["pid"] == pid) entries.push_back(entry);
    }
    return entries;
}

nlohmann::json kfd_dry_run(const SimulatedHost& host, unsigned gpu) {
    CommandResult r =
        host.gpukill({"kill", "--gpu", std::to_string(gpu), "--batch", "--dry-run", "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    return nlohmann::json::parse(r.out);
}

TEST(KfdHost, ARenderNodeAndKfdVramPlaceAProcessOnItsGpuOnly) {
    SimulatedHost host(kTwoAmdHost);
    Workload job = host.run({"--drm", "0", "--kfd-vram", "2G", "--name", "rocm_known"});
    auto p = kfd_listing(host, job);
    ASSERT_EQ(p["gpus"].size(), 1u) << p.dump(2);
    const auto& use = p["gpus"][0];
    EXPECT_EQ(use["index"], kAmd0);
    EXPECT_EQ(use["attribution"], "this_gpu");
    EXPECT_EQ(use["seen_by"], nlohmann::json({"driver", "device_file"}));
    EXPECT_EQ(use["memory_bytes"], 2 * kKfdGiB);  // kfd's vram_<gpu_id>
    EXPECT_EQ(use["driver_kind"], "compute");
    EXPECT_EQ(host.list_json()["gpus"][kAmd1]["process_count"], 0);

    auto other = kfd_dry_run(host, kAmd1);
    EXPECT_TRUE(kfd_entries(other, job.pid()).empty()) << other.dump(2);
    auto own = kfd_dry_run(host, kAmd0);
    auto entries = kfd_entries(own, job.pid());
    ASSERT_EQ(entries.size(), 1u) << own.dump(2);
    EXPECT_EQ(entries[0]["reason"], "selector_match");
    EXPECT_TRUE(process_alive(job.pid()));
}

TEST(KfdHost, KfdVramAlonePlacesAProcessWithoutARenderNode) {
    SimulatedHost host(kTwoAmdHost);
    Workload job = host.run({"--drm", "1", "--kfd-only", "--kfd-vram", "1G"});
    auto p = kfd_listing(host, job);
    ASSERT_EQ(p["gpus"].size(), 1u) << p.dump(2);
    EXPECT_EQ(p["gpus"][0]["index"], kAmd1);
    EXPECT_EQ(p["gpus"][0]["attribution"], "this_gpu");
    EXPECT_EQ(p["device_files"], nlohmann::json({host.root() + "/dev/kfd"}));
}

TEST(KfdHost, KfdAloneIsListedOnEveryAmdGpuMarkedAndKillByGpuLeavesItOut) {
    SimulatedHost host(kTwoAmdHost);
    Workload job = host.run({"--drm", "0", "--kfd-only", "--name", "rocm_any"});
    auto p = kfd_listing(host, job);
    ASSERT_EQ(p["gpus"].size(), 2u) << p.dump(2);
    for (unsigned gpu : {kAmd0, kAmd1}) {
        const auto& use = p["gpus"][gpu];
        EXPECT_EQ(use["index"], gpu);
        EXPECT_EQ(use["attribution"], "any_amd_gpu");
        EXPECT_EQ(use["seen_by"], nlohmann::json({"device_file"}));
        EXPECT_TRUE(use["memory_bytes"].is_null());
    }

    CommandResult table = host.gpukill({"list", "--details"});
    ASSERT_EQ(table.exit_code, 0) << table.err;
    EXPECT_NE(table.out.find("kfd (any AMD GPU) \u2020"), std::string::npos) << table.out;
    EXPECT_NE(table.out.find("\u2020 holds /dev/kfd"), std::string::npos) << table.out;
    EXPECT_EQ(table.out.find("* not in the driver's process list"), std::string::npos)
        << "the file-only footnote is for other rows: " << table.out;

    for (unsigned gpu : {kAmd0, kAmd1}) {
        auto plan = kfd_dry_run(host, gpu);
        auto entries = kfd_entries(plan, job.pid());
        ASSERT_EQ(entries.size(), 1u) << plan.dump(2);
        EXPECT_EQ(entries[0]["outcome"], "refused") << plan.dump(2);
        EXPECT_EQ(entries[0]["refusal"], "gpu_unknown");
        EXPECT_EQ(entries[0]["explicitly_named"], false);
    }

    // Named, it is stopped: the caller says which process, no GPU is guessed.
    CommandResult named =
        host.gpukill({"kill", "--pid", std::to_string(job.pid()), "--dry-run", "--json"});
    ASSERT_EQ(named.exit_code, 0) << named.out << named.err;
    auto entries = kfd_entries(nlohmann::json::parse(named.out), job.pid());
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_EQ(entries[0]["reason"], "named_pid");
    EXPECT_TRUE(process_alive(job.pid()));
}

TEST(KfdHost, KfdEntriesVanishWithTheProcess) {
    SimulatedHost host(kTwoAmdHost);
    Workload job = host.run({"--drm", "0", "--kfd-vram", "1G"});
    ASSERT_EQ(kfd_listing(host, job)["gpus"].size(), 1u);
    job.kill_parent();  // SIGKILL: no chance to clean up after itself, as with the kernel's
    auto doc = host.list_json();
    EXPECT_EQ(kfd_listed(doc, job.pid()), nullptr) << doc.dump(2);
    EXPECT_EQ(doc["gpus"][kAmd0]["process_count"], 0);
}

}  // namespace
}  // namespace gpukill::testing

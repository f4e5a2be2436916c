#include "engine/doctor.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace gpukill::engine {
namespace {

const DoctorCheck& find(const std::vector<DoctorCheck>& checks, const std::string& name) {
    auto it = std::find_if(checks.begin(), checks.end(),
                           [&](const DoctorCheck& c) { return c.name == name; });
    EXPECT_NE(it, checks.end()) << name;
    return *it;
}

DoctorFacts healthy() {
    DoctorFacts facts;
    facts.backends.push_back({.name = "nvml",
                              .loaded = true,
                              .detail = "loaded libnvidia-ml.so.1",
                              .driver_version = "550.54.15"});
    facts.procfs_readable = true;
    facts.processes_scanned = 300;
    facts.gpus_found = 2;
    facts.nvidia_device_nodes = 2;
    facts.state_dir = "/var/lib/gpukill";
    facts.state_dir_writable = true;
    return facts;
}

TEST(Doctor, AHealthyHostHasNoWarnings) {
    auto checks = diagnose(healthy());
    for (const auto& check : checks) EXPECT_NE(check.level, CheckLevel::warn) << check.name;
    EXPECT_NE(find(checks, "backend nvml").detail.find("driver 550.54.15"), std::string::npos);
}

TEST(Doctor, DeviceNodesWithoutAWorkingDriverLibraryFailWithAdvice) {
    DoctorFacts facts = healthy();
    facts.backends[0] = {
        .name = "nvml", .loaded = false, .detail = "no library", .advice = "install the driver"};
    auto checks = diagnose(facts);
    const DoctorCheck& check = find(checks, "backend nvml");
    EXPECT_EQ(check.level, CheckLevel::fail);
    EXPECT_EQ(check.advice, "install the driver");
}

TEST(Doctor, NoNodesAndNoLibraryIsOnlyInformation) {
    DoctorFacts facts = healthy();
    facts.nvidia_device_nodes = 0;
    facts.backends[0] = {.name = "nvml", .loaded = false, .detail = "no library"};
    auto checks = diagnose(facts);
    EXPECT_EQ(find(checks, "backend nvml").level, CheckLevel::info);
}

// A node whose runtime answers only over the CRI's gRPC socket: images and pods are
// unknown, and doctor says what is missing and where to look; where the bundles are
// visible it says they are read.
TEST(Doctor, ACriSocketWithoutVisibleBundlesIsAWarningThatNamesTheDirectory) {
    DoctorFacts facts = healthy();
    facts.cri_runtimes.push_back(
        {.name = "containerd",
         .socket = true,
         .bundles = false,
         .bundle_dir = "/run/containerd/io.containerd.runtime.v2.task/k8s.io",
         .socket_path = "/run/containerd/containerd.sock"});
    facts.cri_runtimes.push_back({.name = "cri-o",
                                  .socket = false,
                                  .bundles = false,
                                  .bundle_dir = "/run/containers/storage/overlay-containers",
                                  .socket_path = "/run/crio/crio.sock"});
    auto checks = diagnose(facts);
    const DoctorCheck& check = find(checks, "container images (containerd)");
    EXPECT_EQ(check.level, CheckLevel::warn);
    EXPECT_NE(check.detail.find("gRPC"), std::string::npos) << check.detail;
    EXPECT_NE(check.detail.find("/run/containerd/io.containerd.runtime.v2.task/k8s.io"),
              std::string::npos);
    ASSERT_TRUE(check.advice);
    EXPECT_NE(check.advice->find("--rundir"), std::string::npos);
    EXPECT_TRUE(std::none_of(checks.begin(), checks.end(), [](const DoctorCheck& c) {
        return c.name == "container images (cri-o)";
    })) << "no CRI-O here: nothing to say about it";

    facts.cri_runtimes[0].bundles = true;
    EXPECT_EQ(find(diagnose(facts), "container images (containerd)").level, CheckLevel::ok);
}

TEST(Doctor, UnreadableProcessesAreAWarningThatSaysToRunAsRoot) {
    DoctorFacts facts = healthy();
    facts.processes_denied = 12;
    facts.euid = 1000;
    auto checks = diagnose(facts);
    const DoctorCheck& check = find(checks, "process visibility");
    EXPECT_EQ(check.level, CheckLevel::warn);
    EXPECT_NE(check.detail.find("12 of 300"), std::string::npos);
    ASSERT_TRUE(check.advice);
    EXPECT_NE(check.advice->find("root"), std::string::npos);
}

TEST(Doctor, SaysWhyHoldersAreNotTrackedFromKernelEvents) {
    DoctorFacts facts = healthy();
    EXPECT_EQ(find(diagnose(facts), "holder tracking").level, CheckLevel::ok);
    facts.holder_tracking_unavailable =
        "process connector: Operation not permitted (needs CAP_NET_ADMIN)";
    const DoctorCheck check = find(diagnose(facts), "holder tracking");
    EXPECT_EQ(check.level, CheckLevel::info);  // slower, never blind
    EXPECT_NE(check.detail.find("needs CAP_NET_ADMIN"), std::string::npos) << check.detail;
    ASSERT_TRUE(check.advice);
    EXPECT_NE(check.advice->find("CAP_NET_ADMIN"), std::string::npos);
}

// As root the advice never says "run as root": it names what is missing (issue 33).
TEST(Doctor, AsRootTheAdviceNamesWhatIsMissingInstead) {
    DoctorFacts facts = healthy();
    facts.processes_denied = 1;
    facts.euid = 0;
    constexpr std::uint64_t kAllButModule = 0x000001fffffeffffULL;  // no CAP_SYS_MODULE
    // Root without CAP_SYS_PTRACE: a container's default.
    facts.access.effective_caps = kAllButModule & ~(std::uint64_t{1} << 19);
    std::string advice = *find(diagnose(facts), "process visibility").advice;
    EXPECT_EQ(advice.find("run as root"), std::string::npos) << advice;
    EXPECT_NE(advice.find("CAP_SYS_PTRACE"), std::string::npos) << advice;

    // Root with it: PID 1 of a sandbox holds a capability this process lacks.
    facts.access.effective_caps = kAllButModule;
    facts.access.denied = {
        {.pid = 1, .comm = "process_api", .permitted_caps = 0x000001ffffffffffULL}};
    advice = *find(diagnose(facts), "process visibility").advice;
    EXPECT_EQ(advice.find("run as root"), std::string::npos) << advice;
    EXPECT_NE(advice.find("PID 1 (process_api)"), std::string::npos) << advice;
    EXPECT_NE(advice.find("CAP_SYS_MODULE"), std::string::npos) << advice;

    // Its own PID namespace: the host's processes are not there at all.
    facts.processes_denied = 0;
    facts.access.own_pid_namespace = true;
    const auto checks = diagnose(facts);
    const DoctorCheck& hidden = find(checks, "PID namespace");
    EXPECT_EQ(hidden.level, CheckLevel::warn);
    EXPECT_NE(hidden.advice->find("--pid=host"), std::string::npos) << *hidden.advice;
}

}  // namespace
}  // namespace gpukill::engine

// What the warnings advise when other processes' open files cannot be read: what is
// missing for whoever asks, never "run as root" to root (issue 33).
#include "host/process_access.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include "host/capabilities.hpp"

namespace gpukill {
namespace {

constexpr std::uint64_t kFullSet = 0x000001ffffffffffULL;  // CAP_CHOWN .. CAP_CHECKPOINT_RESTORE
constexpr std::uint64_t kPtrace = std::uint64_t{1} << kCapSysPtrace;

TEST(ProcessAccess, StatusMasksAreReadByTheirKey) {
    const std::string status =
        "Name:\tprocess_api\nCapInh:\t0000000000000000\nCapPrm:\t000001ffffffffff\n"
        "CapEff:\t000001fffeffffff\nCapBnd:\t000001fffeffffff\n";
    EXPECT_EQ(*parse_capability_mask(status, "CapPrm"), kFullSet);
    EXPECT_EQ(*parse_capability_mask(status, "CapEff"), 0x000001fffeffffffULL);
    EXPECT_FALSE(parse_capability_mask(status, "CapAmb"));
    EXPECT_EQ(capability_name(19), "CAP_SYS_PTRACE");
    EXPECT_EQ(capability_name(16), "CAP_SYS_MODULE");
    EXPECT_EQ(capability_name(60), "capability 60");
}

TEST(ProcessAccess, AnotherUserIsToldToRunAsRoot) {
    ProcessAccessFacts facts{.euid = 1000, .effective_caps = 0};
    EXPECT_TRUE(unreadable_processes_advice(facts).starts_with("run as root (sudo gpukill"));
}

TEST(ProcessAccess, RootWithoutPtraceIsToldWhichCapabilityToGrant) {
    ProcessAccessFacts facts{.euid = 0, .effective_caps = kFullSet & ~kPtrace};
    const std::string advice = unreadable_processes_advice(facts);
    EXPECT_EQ(advice.find("run as root"), std::string::npos) << advice;
    EXPECT_NE(advice.find("without CAP_SYS_PTRACE"), std::string::npos) << advice;
    EXPECT_NE(advice.find("--cap-add SYS_PTRACE"), std::string::npos) << advice;
}

TEST(ProcessAccess, RootWithPtraceIsToldWhoIsBeyondItAndWhy) {
    const std::uint64_t without_module = kFullSet & ~(std::uint64_t{1} << 16);
    ProcessAccessFacts facts{.euid = 0, .effective_caps = without_module};
    facts.denied = {{.pid = 1, .comm = "process_api", .permitted_caps = kFullSet}};
    std::string advice = unreadable_processes_advice(facts);
    EXPECT_EQ(advice.find("run as root"), std::string::npos) << advice;
    EXPECT_NE(advice.find("PID 1 (process_api) holds capabilities this process lacks "
                          "(CAP_SYS_MODULE)"),
              std::string::npos)
        << advice;
    EXPECT_NE(advice.find("sandbox"), std::string::npos) << advice;

    // Nothing it holds is beyond this process: no capability to blame.
    facts.denied[0].permitted_caps = 0;
    advice = unreadable_processes_advice(facts);
    EXPECT_EQ(advice.find("run as root"), std::string::npos) << advice;
    EXPECT_NE(advice.find("security module"), std::string::npos) << advice;
}

TEST(ProcessAccess, OnlyAnOwnPidNamespaceOverItsOwnProcIsAdvisedAbout) {
    ProcessAccessFacts facts;
    EXPECT_FALSE(pid_namespace_advice(facts));
    facts.own_pid_namespace = true;
    ASSERT_TRUE(pid_namespace_advice(facts));
    EXPECT_NE(pid_namespace_advice(facts)->find("hostPID"), std::string::npos);
}

TEST(ProcessAccess, TheRunningProcessFactsAreItsOwn) {
    const ProcessAccessFacts facts = read_process_access_facts(HostRoots{}, {::getpid()});
    EXPECT_EQ(facts.euid, ::geteuid());
    ASSERT_TRUE(facts.effective_caps.has_value());
    ASSERT_EQ(facts.denied.size(), 1u);
    EXPECT_FALSE(facts.denied[0].comm.empty());
    EXPECT_TRUE(facts.denied[0].permitted_caps.has_value());
}

}  // namespace
}  // namespace gpukill

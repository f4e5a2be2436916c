// The effectful safety inputs: capabilities, the ancestor walk, pid_max, the process table.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <map>

#include "host/capabilities.hpp"
#include "host/process_table.hpp"
#include "reclaim/safety_context.hpp"

namespace gpukill::reclaim {
namespace {

TEST(ReclaimCapabilities, ParsesCapEffAsHex) {
    const char* root = "Name:\tbash\nCapInh:\t0000000000000000\nCapEff:\t000001ffffffffff\n";
    EXPECT_EQ(parse_effective_capabilities(root).value(), 0x000001ffffffffffULL);
    EXPECT_TRUE(has_cap_kill(0x000001ffffffffffULL));
    const char* user = "CapEff:\t0000000000000000\n";
    EXPECT_FALSE(has_cap_kill(parse_effective_capabilities(user).value()));
    EXPECT_TRUE(has_cap_kill(parse_effective_capabilities("CapEff:\t0000000000000020").value()));
}

TEST(ReclaimCapabilities, RejectsMissingOrMalformedCapEff) {
    EXPECT_FALSE(parse_effective_capabilities("Name:\tbash\n").has_value());
    EXPECT_FALSE(parse_effective_capabilities("CapEff:\t00zz\n").has_value());
    EXPECT_FALSE(parse_effective_capabilities("CapEff:\t\n").has_value());
    EXPECT_FALSE(parse_effective_capabilities("CapEff:\t00000000000000000020\n").has_value());
}

TEST(ReclaimSafetyContext, AncestorWalkStopsAtInitAndAtCycles) {
    const std::map<pid_t, pid_t> parents{{90, 80}, {80, 1}, {1, 0}, {7, 8}, {8, 7}};
    auto ppid_of = [&](pid_t pid) -> std::optional<pid_t> {
        auto it = parents.find(pid);
        if (it == parents.end()) return std::nullopt;
        return it->second;
    };
    EXPECT_EQ(ancestors_of(90, ppid_of), (std::set<pid_t>{90, 80, 1}));
    EXPECT_EQ(ancestors_of(7, ppid_of), (std::set<pid_t>{7, 8}));
    EXPECT_EQ(ancestors_of(55, ppid_of), (std::set<pid_t>{55}));  // unreadable parent
}

TEST(ReclaimSafetyContext, ParsesPidMax) {
    EXPECT_EQ(parse_pid_max("4194304\n"), 4194304);
    EXPECT_EQ(parse_pid_max("32768"), 32768);
    EXPECT_EQ(parse_pid_max("0\n"), std::nullopt);
    EXPECT_EQ(parse_pid_max("lots"), std::nullopt);
}

TEST(ReclaimSafetyContext, GathersThisProcess) {
    const SafetyContext context = gather_safety_context(HostRoots{}, default_protected_list());
    EXPECT_EQ(context.self, ::getpid());
    EXPECT_EQ(context.self_pgid, ::getpgrp());
    EXPECT_EQ(context.euid, ::geteuid());
    EXPECT_TRUE(context.ancestors.contains(::getppid()));
    EXPECT_FALSE(context.ancestors.contains(::getpid()));
    EXPECT_GT(context.pid_max, 1);
    EXPECT_TRUE(context.protected_list.names.contains("Xorg"));
    if (::geteuid() == 0) {
        EXPECT_TRUE(context.can_signal_any_user);
    }
}

TEST(ReclaimProcessTable, ListsThisProcessAndItsParent) {
    auto table = read_process_table(HostRoots{});
    ASSERT_TRUE(table.has_value()) << table.error().what;
    bool self = false;
    bool parent = false;
    for (const ProcessInfo& info : *table) {
        self = self || (info.pid == ::getpid() && info.ppid == ::getppid());
        parent = parent || info.pid == ::getppid();
    }
    EXPECT_TRUE(self);
    EXPECT_TRUE(parent);
    EXPECT_TRUE(
        std::is_sorted(table->begin(), table->end(),
                       [](const ProcessInfo& a, const ProcessInfo& b) { return a.pid < b.pid; }));
}

TEST(ReclaimProcessTable, MissingProcfsIsAnError) {
    EXPECT_FALSE(read_process_table(HostRoots{.procfs = "/nonexistent-gpukill-proc"}).has_value());
}

}  // namespace
}  // namespace gpukill::reclaim

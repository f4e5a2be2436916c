// Fit for a process that runs for weeks: many list + evaluate cycles in one Engine (what
// the agent and guard run do all day) must not grow resident memory. Run as its own
// test with the sanitizer's quarantine off, which would otherwise hold freed memory on
// purpose and hide what this measures.
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>

#include "../integration/engine_support.hpp"
#include "engine/guard_inputs.hpp"
#include "guard/evaluate.hpp"
#include "guard/policy_yaml.hpp"
#include "guard/unix_groups.hpp"

namespace gpukill::testing {
namespace {

std::uint64_t resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    std::uint64_t size = 0;
    std::uint64_t resident = 0;
    statm >> size >> resident;
    return resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

int cycles_wanted() {
    const char* text = std::getenv("GPUKILL_SOAK_CYCLES");
    return text != nullptr ? std::atoi(text) : 10000;
}

TEST(EngineSoak, TenThousandListAndEvaluateCyclesKeepResidentMemoryFlat) {
    SimulatedHost host;
    Workload job = host.run({"--gpu", "0", "--mem", "2G", "--workers", "2"});
    Workload other = host.run({"--gpu", "1", "--mem", "1G", "--name", "other"});
    auto engine = open_engine_on(host);
    auto policy = guard::parse_policy(
        "mode: enforce\nusers:\n  " + current_user_name() +
            ":\n    memory_limit: 1G\n    action: warn\nrules:\n  - {name: stuck, kind: "
            "stuck, utilization_above: 95, for: 10m, action: terminate}\n",
        "soak.yaml");
    ASSERT_TRUE(policy) << policy.error().what;
    guard::History history;
    guard::GuardState state;
    const reclaim::ProtectedList protected_list = reclaim::default_protected_list();
    auto now = std::chrono::system_clock::now();
    std::size_t decisions = 0;
    const auto cycle = [&] {
        Snapshot snapshot = engine->snapshot().snapshot;
        now += std::chrono::seconds(1);
        snapshot.timestamp_unix_ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
        const auto groups = guard::resolve_unix_groups(*policy, snapshot);
        guard::Evaluation evaluation =
            guard::evaluate(guard::EvaluationInput{.policy = *policy,
                                                   .snapshot = snapshot,
                                                   .history = history,
                                                   .clock = guard::local_clock(now),
                                                   .state = state,
                                                   .reclaim_protected = protected_list,
                                                   .unix_group_members = groups,
                                                   .rogue_scores = {}});
        state = evaluation.state;
        history.add_snapshot(snapshot);
        history.forget_before(snapshot.timestamp_unix_ms - 10 * 60 * 1000);
        decisions += evaluation.decisions.size();
    };
    // Warm-up: ten minutes of history (the rule's window) fills up, caches settle.
    for (int i = 0; i < 1000; ++i) cycle();
    const std::uint64_t before = resident_bytes();
    const auto started = std::chrono::steady_clock::now();
    const int cycles = cycles_wanted();
    for (int i = 0; i < cycles; ++i) cycle();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const std::uint64_t after = resident_bytes();
    EXPECT_GT(decisions, 0u);  // the policy judged the workloads every cycle
    RecordProperty("cycles", cycles);
    RecordProperty("resident_growth_bytes", std::to_string(after - std::min(after, before)));
    std::printf("%d cycles in %.1f s (%.2f ms each); resident %llu -> %llu KiB\n", cycles, seconds,
                1000 * seconds / cycles, static_cast<unsigned long long>(before / 1024),
                static_cast<unsigned long long>(after / 1024));
    EXPECT_LT(after, before + (1u << 20))
        << "resident memory grew by " << (after - before) << " bytes over " << cycles << " cycles";
}

}  // namespace
}  // namespace gpukill::testing

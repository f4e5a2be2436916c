// Fit for a process that runs for weeks: many list + guard cycles in one Engine (what
// the agent and `guard run` do all day: Guard::cycle over the engine's snapshot, with the
// usage history, the saved warnings, the protected list read each cycle) must not grow
// resident memory. Run as its own
// test with the sanitizer's quarantine off, which would otherwise hold freed memory on
// purpose and hide what this measures.
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>

#include "../integration/engine_support.hpp"
#include "engine/guard.hpp"

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

TEST(EngineSoak, TenThousandListAndGuardCyclesKeepResidentMemoryFlat) {
    SimulatedHost host;
    Workload job = host.run({"--gpu", "0", "--mem", "2G", "--workers", "2"});
    Workload other = host.run({"--gpu", "1", "--mem", "1G", "--name", "other"});
    // The usage history at its default interval (a sample every 30 s of the guard's time),
    // as a deployed agent records it.
    engine::EngineConfig config = engine_config_for(host);
    config.environment = [](const char*) -> std::optional<std::string> { return std::nullopt; };
    auto opened = engine::Engine::open(config);
    ASSERT_TRUE(opened) << opened.error().what;
    engine::Engine& engine = **opened;
    // dry-run: every verdict is judged and recorded as it would be enforced, and nothing
    // is written to anyone's terminal or signalled.
    const std::string policy_path = beside(host, "config") + "/guard.yaml";
    std::ofstream(policy_path) << "mode: dry-run\nusers:\n  " << current_user_name()
                               << ":\n    memory_limit: 1G\n    action: warn\nrules:\n  - {name: "
                                  "stuck, kind: stuck, utilization_above: 95, for: 10m, action: "
                                  "terminate}\n";
    auto now = std::chrono::system_clock::now();
    std::size_t problems = 0;
    auto guard = engine::Guard::open(
        engine, engine::GuardSetup{.policy_path = policy_path, .command = "soak"},
        engine::local_actor(Interface::guard),
        [&](const engine::GuardEvent& event) {
            if (event.kind == engine::GuardEventKind::problem) ++problems;
        },
        now);
    ASSERT_TRUE(guard) << guard.error().what;
    std::size_t decisions = 0;
    const auto cycle = [&] {
        now += std::chrono::seconds(1);
        (*guard)->cycle(now, engine.snapshot().snapshot);
        decisions += (*guard)->last_decisions().size();
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
    EXPECT_EQ(problems, 0u);   // state saved, history recorded, protected list read
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

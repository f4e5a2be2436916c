// A kill of named PIDs reads only them, their descendants and what they hold
// (read_process_family, discover_processes) instead of the whole host. The shortcut
// must plan exactly what the full sweep plans: the same targets with the same
// identities, reasons, GPUs and memory, the same refusals, for parents with workers, a
// named worker, a launcher whose child holds the GPU, a process holding nothing, and
// --tree. Nothing is signalled here.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>

#include "engine/engine_state.hpp"
#include "engine_support.hpp"
#include "host/process_table.hpp"
#include "reclaim/safety_context.hpp"
#include "reclaim/select.hpp"

namespace gpukill::testing {
namespace {

// Everything of a plan that says what would be signalled and why, as text to compare.
std::string described(const reclaim::KillPlan& plan) {
    std::string text;
    for (const reclaim::PlannedTarget& target : plan.targets) {
        text += fmt::format("target {} start {} {} {} reason {} '{}' gpus {} memory",
                            target.identity.pid, target.identity.start_time_ticks, target.name,
                            target.user, reclaim::to_string(target.reason), target.reason_detail,
                            fmt::join(target.gpus, ","));
        for (const auto& [gpu, bytes] : target.memory_bytes)
            text += fmt::format(" {}:{}", gpu, bytes);
        text += "\n";
    }
    for (const reclaim::Refusal& refusal : plan.refusals) {
        text += fmt::format("refused {} '{}' {} named={}\n", refusal.pid, refusal.argument,
                            reclaim::to_string(refusal.kind), refusal.explicitly_named);
    }
    text += fmt::format("batch {}\n", plan.needs_batch_confirmation);
    return text;
}

struct Plans {
    std::string full;
    std::string targeted;
    std::size_t family_size = 0;
};

Plans plan_both_ways(engine::Engine& engine, const reclaim::Selectors& selectors) {
    const HostRoots& roots = engine.config().roots;
    auto protected_list = engine::load_protected_list(engine);
    if (!protected_list) throw std::runtime_error(protected_list.error().what);
    const reclaim::SafetyContext safety = reclaim::gather_safety_context(roots, *protected_list);

    auto table = read_process_table(roots);
    if (!table) throw std::runtime_error(table.error().what);
    auto full = reclaim::build_kill_plan(engine::host_snapshot(engine), *table, selectors, safety);

    std::vector<pid_t> named;
    for (const std::string& argument : selectors.pid_arguments)
        named.push_back(std::stoi(argument));
    const std::vector<ProcessInfo> family = read_process_family(roots, named);
    std::vector<pid_t> family_pids;
    for (const ProcessInfo& info : family) family_pids.push_back(info.pid);
    auto targeted = reclaim::build_kill_plan(engine::family_snapshot(engine, family_pids), family,
                                             selectors, safety);
    if (!full || !targeted) throw std::runtime_error("a plan failed");
    return {described(*full), described(*targeted), family.size()};
}

reclaim::Selectors named(std::vector<pid_t> pids) {
    reclaim::Selectors selectors;
    for (pid_t pid : pids) selectors.pid_arguments.push_back(std::to_string(pid));
    return selectors;
}

TEST(TargetedKill, PlansWhatTheFullSweepPlansForParentsWorkersAndTrees) {
    SimulatedHost host;
    Workload trainer = host.run({"--gpu", "0", "--mem", "2G", "--workers", "3"});
    Workload other = host.run({"--gpu", "1", "--mem", "1G", "--workers", "1"});
    auto engine = open_engine_on(host);

    Plans parent = plan_both_ways(*engine, named({trainer.pid()}));
    EXPECT_EQ(parent.targeted, parent.full);
    EXPECT_EQ(parent.family_size, 4u) << "the parent and its three workers";
    EXPECT_NE(parent.full.find(fmt::format("target {} ", trainer.workers().back())),
              std::string::npos)
        << parent.full;
    EXPECT_EQ(parent.full.find(fmt::format("target {} ", other.pid())), std::string::npos);

    Plans worker = plan_both_ways(*engine, named({trainer.workers().front()}));
    EXPECT_EQ(worker.targeted, worker.full);

    Plans two = plan_both_ways(*engine, named({trainer.pid(), other.workers().front()}));
    EXPECT_EQ(two.targeted, two.full);

    reclaim::Selectors tree = named({trainer.pid()});
    tree.tree = true;
    Plans with_tree = plan_both_ways(*engine, tree);
    EXPECT_EQ(with_tree.targeted, with_tree.full);
}

TEST(TargetedKill, PlansWhatTheFullSweepPlansForALauncherAndForAProcessHoldingNothing) {
    SimulatedHost host;
    // A launcher that holds nothing, whose child holds GPU 0 (the shell stays the parent:
    // it has a command after the workload).
    const std::string workload =
        fmt::format("'{}' run --root '{}' --gpu 0 --mem 1G; :", GPUSIM_BIN, host.root());
    RunningCommand launcher({"/bin/sh", "-c", workload}, host.env());
    const std::optional<std::string> ready = launcher.read_line();
    ASSERT_TRUE(ready.has_value()) << "the workload's ready line";
    // The workload is the shell's child, not ours, so the launcher's end would leave it
    // running. As a parentless Workload's only worker it is signalled through a pidfd
    // when the test ends, before the launcher: the shell, alive and waiting for it, has
    // not reaped it, so its PID is still its own.
    const Workload held(0, 0, {nlohmann::json::parse(*ready).at("pid").get<pid_t>()}, 0);
    RunningCommand idle({"/bin/sleep", "600"});
    auto engine = open_engine_on(host);

    Plans launched = plan_both_ways(*engine, named({launcher.pid()}));
    EXPECT_EQ(launched.targeted, launched.full);
    EXPECT_EQ(launched.full.find("holds_no_gpu"), std::string::npos)
        << "a descendant holds a GPU: the launcher is not refused\n"
        << launched.full;

    Plans nothing = plan_both_ways(*engine, named({idle.pid()}));
    EXPECT_EQ(nothing.targeted, nothing.full);
    EXPECT_NE(nothing.full.find("holds_no_gpu"), std::string::npos) << nothing.full;

    reclaim::Selectors any = named({idle.pid()});
    any.any_process = true;
    Plans allowed = plan_both_ways(*engine, any);
    EXPECT_EQ(allowed.targeted, allowed.full);

    Plans gone = plan_both_ways(*engine, named({4194304 - 1}));
    EXPECT_EQ(gone.targeted, gone.full);
}

}  // namespace
}  // namespace gpukill::testing

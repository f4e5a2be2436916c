// The words of the monitor's dialogs: the confirmation names every process (PID, user,
// the GPU memory it frees), the result says per GPU whether the memory came back, and a
// soft-locked GPU is offered a reset.
#include <gtest/gtest.h>

#include <algorithm>

#include "top/action_text.hpp"

namespace gpukill::top {
namespace {

constexpr std::uint64_t kGiB = 1ULL << 30;

bool has_line(const std::vector<std::string>& lines, const std::string& part) {
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& line) {
        return line.find(part) != std::string::npos;
    });
}

reclaim::PlannedTarget planned(pid_t pid, const std::string& user, unsigned gpu,
                               std::uint64_t memory) {
    reclaim::PlannedTarget target;
    target.identity = {pid, 5000};
    target.name = "worker";
    target.user = user;
    target.gpus = {gpu};
    target.memory_bytes[gpu] = memory;
    return target;
}

engine::KillOutcome two_worker_plan() {
    engine::KillOutcome plan;
    plan.first_signal_name = "SIGKILL";
    plan.plan.targets = {planned(4101, "alice", 1, 2 * kGiB), planned(4102, "alice", 1, 2 * kGiB)};
    plan.plan.gpu_memory_expected_release[1] = 4 * kGiB;
    return plan;
}

TEST(TopActionText, TheConfirmationNamesEveryProcessItsUserAndTheMemory) {
    const std::vector<std::string> lines = confirmation_lines(two_worker_plan(), {});
    EXPECT_TRUE(has_line(lines, "Send SIGKILL to 2 processes?"));
    EXPECT_TRUE(has_line(lines, "PID 4101  alice  worker  GPU 1: 2.0 GiB"));
    EXPECT_TRUE(has_line(lines, "PID 4102"));
    EXPECT_TRUE(has_line(lines, "Frees 4.0 GiB on GPU 1"));
}

TEST(TopActionText, RefusalsAreNamedWithTheirReason) {
    engine::KillOutcome plan = two_worker_plan();
    plan.plan.refusals.push_back({.pid = 1,
                                  .argument = "1",
                                  .name = "init",
                                  .kind = reclaim::RefusalKind::init,
                                  .why = "PID 1 is init",
                                  .explicitly_named = false});
    Row bob;
    bob.identity = {200, 1};
    bob.not_actionable_reason = "PID 200 belongs to bob: only root may signal it";
    const std::vector<std::string> lines = confirmation_lines(plan, {bob});
    EXPECT_TRUE(has_line(lines, "not PID 1 init: PID 1 is init"));
    EXPECT_TRUE(has_line(lines, "belongs to bob"));
}

TEST(TopActionText, TheResultSaysPerGpuWhetherTheMemoryCameBack) {
    engine::KillOutcome outcome = two_worker_plan();
    outcome.results = std::vector<reclaim::TargetResult>{{.target = outcome.plan.targets[0],
                                                          .outcome = reclaim::Outcome::killed,
                                                          .signals_sent = {"SIGKILL"},
                                                          .seconds = 0.01,
                                                          .note = std::nullopt},
                                                         {.target = outcome.plan.targets[1],
                                                          .outcome = reclaim::Outcome::killed,
                                                          .signals_sent = {"SIGKILL"},
                                                          .seconds = 0.01,
                                                          .note = std::nullopt}};
    reclaim::GpuRelease back;
    back.gpu = 1;
    back.released = true;
    back.memory_reclaimed_bytes = 4 * kGiB;
    back.seconds_to_release = 0.2;
    reclaim::GpuRelease locked;
    locked.gpu = 2;
    locked.soft_locked = true;
    locked.memory_used_after = kGiB;
    outcome.releases = std::vector<reclaim::GpuRelease>{back, locked};
    const std::vector<std::string> lines = kill_summary_lines(outcome);
    EXPECT_TRUE(has_line(lines, "PID 4101 worker: killed (SIGKILL)"));
    EXPECT_TRUE(has_line(lines, "GPU 1: memory back: 4.0 GiB came back in 0.2 s"));
    EXPECT_TRUE(has_line(lines, "GPU 2: memory NOT back"));
    EXPECT_TRUE(has_line(lines, "press R to reset"));
    EXPECT_EQ(soft_locked_gpus(outcome), (std::vector<unsigned>{2}));
}

TEST(TopActionText, TheResetPreflightSaysWhatWillHappenOrWhyNot) {
    engine::ResetOutcome preview;
    preview.plan.decision = reclaim::ResetDecision::refused;
    preview.plan.why = "not root";
    preview.plan.advice = "run as root";
    reclaim::ResetGpu gpu;
    gpu.index = 2;
    gpu.name = "Simulated GPU";
    gpu.memory_used_before_bytes = kGiB;
    preview.plan.gpus = {gpu};
    std::vector<std::string> lines = reset_preflight_lines(preview);
    EXPECT_TRUE(has_line(lines, "GPU 2 cannot be reset: not root"));
    EXPECT_TRUE(has_line(lines, "run as root"));
    preview.plan.decision = reclaim::ResetDecision::reset;
    lines = reset_preflight_lines(preview);
    EXPECT_TRUE(has_line(lines, "Reset GPU 2?"));
    EXPECT_TRUE(has_line(lines, "1.0 GiB used"));
}

}  // namespace
}  // namespace gpukill::top

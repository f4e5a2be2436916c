// execute_plan on real processes the test starts: outcomes, signals sent, timing, the
// stale-identity refusal, stopped and zombie targets, and the kill() fallback.
#include <signal.h>

#include <gtest/gtest.h>

#include <chrono>

#include "child_processes.hpp"
#include "reclaim/execute.hpp"

namespace gpukill::reclaim {
namespace {

using reclaim_test::Behaviour;
using reclaim_test::Children;
using Strings = std::vector<std::string>;

KillPlan plan_of(const std::vector<ProcessIdentity>& identities) {
    KillPlan plan;
    for (const ProcessIdentity& identity : identities) {
        plan.targets.push_back(PlannedTarget{.identity = identity, .name = "child"});
    }
    return plan;
}

ExecuteOptions quick(double timeout_seconds, bool force = false) {
    return ExecuteOptions{
        .timeout_seconds = timeout_seconds, .force = force, .kill_timeout_seconds = 5};
}

bool contains(const std::optional<std::string>& text, std::string_view part) {
    return text && text->find(part) != std::string::npos;
}

TEST(ReclaimExecute, CooperativeChildIsTerminatedBySigterm) {
    Children children;
    const pid_t pid = children.start(Behaviour::cooperative);
    ExecuteResult result = execute_plan(plan_of({Children::identity(pid)}), HostRoots{}, quick(5));
    ASSERT_EQ(result.targets.size(), 1U);
    const TargetResult& t = result.targets[0];
    EXPECT_EQ(t.outcome, Outcome::terminated);
    EXPECT_EQ(t.signals_sent, Strings{"SIGTERM"});
    EXPECT_LT(t.seconds, 2.0);
    EXPECT_LT(result.seconds, 2.0);
    EXPECT_FALSE(t.note.has_value());
    // It exited but we, its parent, have not reaped it yet.
    note_unreaped_zombies(result.targets, HostRoots{});
    EXPECT_TRUE(contains(t.note, "zombie: parent " + std::to_string(::getpid())));
    const int status = children.reap(pid);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
}

TEST(ReclaimExecute, SlowExitIsWaitedForWithoutPolling) {
    Children children;
    const pid_t pid = children.start(Behaviour::slow_term);
    const ExecuteResult result =
        execute_plan(plan_of({Children::identity(pid)}), HostRoots{}, quick(5));
    const TargetResult& t = result.targets.at(0);
    EXPECT_EQ(t.outcome, Outcome::terminated);
    EXPECT_GE(t.seconds, 0.25);
    EXPECT_LT(t.seconds, 3.0);
    const int status = children.reap(pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(ReclaimExecute, TermIgnoringChildSurvivesWithoutForce) {
    Children children;
    const pid_t pid = children.start(Behaviour::ignores_term);
    std::size_t progress_calls = 0;
    ExecuteOptions options = quick(0.5);
    options.progress = [&](std::size_t left, double seconds) {
        ++progress_calls;
        EXPECT_EQ(left, 1U);
        EXPECT_LE(seconds, 0.5);
    };
    const ExecuteResult result =
        execute_plan(plan_of({Children::identity(pid)}), HostRoots{}, options);
    const TargetResult& t = result.targets.at(0);
    EXPECT_EQ(t.outcome, Outcome::survived);
    EXPECT_EQ(t.signals_sent, Strings{"SIGTERM"});
    EXPECT_TRUE(contains(t.note, "--force")) << t.note.value_or("");
    EXPECT_GE(result.seconds, 0.5);
    EXPECT_LT(result.seconds, 2.5);
    EXPECT_GE(progress_calls, 2U);  // at the start and about every 200 ms
    EXPECT_LE(progress_calls, 6U);
    EXPECT_TRUE(Children::alive(pid));  // the guard kills and reaps it
}

TEST(ReclaimExecute, ForceKillsWhatIgnoresSigterm) {
    Children children;
    const pid_t pid = children.start(Behaviour::ignores_term);
    const ExecuteResult result =
        execute_plan(plan_of({Children::identity(pid)}), HostRoots{}, quick(0.2, true));
    const TargetResult& t = result.targets.at(0);
    EXPECT_EQ(t.outcome, Outcome::killed);
    EXPECT_EQ(t.signals_sent, (Strings{"SIGTERM", "SIGKILL"}));
    EXPECT_GE(t.seconds, 0.2);
    EXPECT_LT(t.seconds, 2.5);
    const int status = children.reap(pid);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

TEST(ReclaimExecute, FirstSignalSigkillCountsAsKilled) {
    Children children;
    const pid_t pid = children.start(Behaviour::ignores_term);
    ExecuteOptions options = quick(5);
    options.first_signal = SIGKILL;
    const ExecuteResult result =
        execute_plan(plan_of({Children::identity(pid)}), HostRoots{}, options);
    EXPECT_EQ(result.targets.at(0).outcome, Outcome::killed);
    EXPECT_EQ(result.targets.at(0).signals_sent, Strings{"SIGKILL"});
    children.reap(pid);
}

TEST(ReclaimExecute, StoppedChildIsContinuedSoSigtermTakesEffect) {
    Children children;
    const pid_t pid = children.start(Behaviour::cooperative);
    children.stop(pid);
    const ExecuteResult result =
        execute_plan(plan_of({Children::identity(pid)}), HostRoots{}, quick(5));
    const TargetResult& t = result.targets.at(0);
    EXPECT_EQ(t.outcome, Outcome::terminated);
    EXPECT_EQ(t.signals_sent, (Strings{"SIGTERM", "SIGCONT"}));
    EXPECT_LT(t.seconds, 2.0);
    const int status = children.reap(pid);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
}

TEST(ReclaimExecute, StaleIdentityIsRefusedAndNothingIsSignalled) {
    Children children;
    const pid_t pid = children.start(Behaviour::cooperative);
    ProcessIdentity stale = Children::identity(pid);
    stale.start_time_ticks += 1;  // the planned process was another one with this PID
    const ExecuteResult result = execute_plan(plan_of({stale}), HostRoots{}, quick(5));
    const TargetResult& t = result.targets.at(0);
    EXPECT_EQ(t.outcome, Outcome::gone);
    EXPECT_EQ(t.note, "PID reused by another process");
    EXPECT_TRUE(t.signals_sent.empty());
    EXPECT_TRUE(Children::alive(pid));
}

TEST(ReclaimExecute, VanishedProcessIsGone) {
    Children children;
    const pid_t pid = children.start(Behaviour::exits_at_once);
    const ProcessIdentity identity = Children::identity(pid);
    children.reap(pid);
    const ExecuteResult result = execute_plan(plan_of({identity}), HostRoots{}, quick(5));
    EXPECT_EQ(result.targets.at(0).outcome, Outcome::gone);
    EXPECT_TRUE(result.targets.at(0).signals_sent.empty());
}

TEST(ReclaimExecute, ZombieTargetHasExitedAndIsNotSignalled) {
    Children children;
    const pid_t pid = children.start(Behaviour::exits_at_once);
    Children::wait_until_exited(pid);
    ExecuteResult result = execute_plan(plan_of({Children::identity(pid)}), HostRoots{}, quick(5));
    note_unreaped_zombies(result.targets, HostRoots{});
    const TargetResult& t = result.targets.at(0);
    EXPECT_EQ(t.outcome, Outcome::exited);
    EXPECT_TRUE(t.signals_sent.empty());
    EXPECT_TRUE(contains(t.note, "has not reaped it"));
    const int status = children.reap(pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(ReclaimExecute, AbortedOrUnconfirmedPlanSignalsNothing) {
    Children children;
    const pid_t pid = children.start(Behaviour::cooperative);
    KillPlan aborted = plan_of({Children::identity(pid)});
    aborted.refusals.push_back(
        Refusal{.pid = 1, .kind = RefusalKind::init, .explicitly_named = true});
    KillPlan preview = plan_of({Children::identity(pid)});
    preview.needs_batch_confirmation = true;
    for (const KillPlan* plan : {&aborted, &preview}) {
        const ExecuteResult result = execute_plan(*plan, HostRoots{}, quick(0.2, true));
        EXPECT_EQ(result.targets.at(0).outcome, Outcome::refused);
        EXPECT_TRUE(result.targets.at(0).signals_sent.empty());
        EXPECT_TRUE(result.targets.at(0).note.has_value());
    }
    EXPECT_TRUE(Children::alive(pid));
}

TEST(ReclaimExecute, KillFallbackWithoutPidfdsStillEscalates) {
    Children children;
    const pid_t polite = children.start(Behaviour::cooperative);
    const pid_t stubborn = children.start(Behaviour::ignores_term);
    ExecuteOptions options = quick(0.3, true);
    options.use_pidfd = false;
    const ExecuteResult result = execute_plan(
        plan_of({Children::identity(polite), Children::identity(stubborn)}), HostRoots{}, options);
    EXPECT_EQ(result.targets.at(0).outcome, Outcome::terminated);
    EXPECT_EQ(result.targets.at(1).outcome, Outcome::killed);
    EXPECT_LT(result.seconds, 3.0);
    children.reap(polite);
    children.reap(stubborn);
}

TEST(ReclaimExecute, ResultsFollowPlanOrder) {
    Children children;
    const pid_t a = children.start(Behaviour::slow_term);
    const pid_t b = children.start(Behaviour::cooperative);
    const ExecuteResult result = execute_plan(
        plan_of({Children::identity(a), Children::identity(b)}), HostRoots{}, quick(5));
    ASSERT_EQ(result.targets.size(), 2U);
    EXPECT_EQ(result.targets[0].target.identity.pid, a);
    EXPECT_EQ(result.targets[1].target.identity.pid, b);
    EXPECT_GT(result.targets[0].seconds, result.targets[1].seconds);
    children.reap(a);
    children.reap(b);
}

// Each round of signals is handed to the recorder before its first system call (so the
// intent can be on disk if the caller is killed right after a send) and after its last.
TEST(ReclaimExecute, EachRoundIsRecordedBeforeItsSignalsGoOutAndAfter) {
    Children children;
    const pid_t stubborn = children.start(Behaviour::ignores_term);
    const pid_t paused = children.start(Behaviour::ignores_term);
    children.stop(paused);
    struct Seen {
        std::string when;
        std::vector<std::pair<std::size_t, std::string>> sends;
        bool stubborn_alive = false;
        Strings stubborn_signals;
    };
    std::vector<Seen> seen;
    const auto note = [&](const char* when) {
        return [&seen, when, stubborn](const std::vector<SignalSend>& sends,
                                       const ExecuteResult& so_far) {
            Seen entry{.when = when,
                       .sends = {},
                       .stubborn_alive = Children::alive(stubborn),
                       .stubborn_signals = so_far.targets.at(0).signals_sent};
            for (const SignalSend& send : sends) {
                entry.sends.emplace_back(send.target, signal_name(send.signal));
            }
            seen.push_back(std::move(entry));
        };
    };
    const ExecuteResult result = execute_plan(
        plan_of({Children::identity(stubborn), Children::identity(paused)}), HostRoots{},
        quick(0.2, true), {.sending = note("sending"), .sent = note("sent")});

    using Sends = std::vector<std::pair<std::size_t, std::string>>;
    ASSERT_EQ(seen.size(), 4U);
    EXPECT_EQ(seen[0].when, "sending");
    EXPECT_EQ(seen[0].sends, (Sends{{0, "SIGTERM"}, {1, "SIGTERM"}, {1, "SIGCONT"}}));
    EXPECT_TRUE(seen[0].stubborn_signals.empty()) << "recorded before anything was sent";
    EXPECT_EQ(seen[1].when, "sent");
    EXPECT_EQ(seen[1].sends, (Sends{{0, "SIGTERM"}, {1, "SIGTERM"}, {1, "SIGCONT"}}));
    EXPECT_EQ(seen[1].stubborn_signals, Strings{"SIGTERM"});
    EXPECT_EQ(seen[2].when, "sending");
    EXPECT_EQ(seen[2].sends, (Sends{{0, "SIGKILL"}, {1, "SIGKILL"}}));
    EXPECT_TRUE(seen[2].stubborn_alive) << "SIGKILL's intent is recorded before it is sent";
    EXPECT_EQ(seen[3].when, "sent");
    EXPECT_EQ(seen[3].sends, (Sends{{0, "SIGKILL"}, {1, "SIGKILL"}}));
    EXPECT_EQ(seen[3].stubborn_signals, (Strings{"SIGTERM", "SIGKILL"}));
    EXPECT_EQ(result.targets.at(0).outcome, Outcome::killed);
    EXPECT_EQ(result.targets.at(1).outcome, Outcome::killed);
    children.reap(stubborn);
    children.reap(paused);
}

// A send that does not reach its target (it had already exited) has an intent and no
// `sent`: the round's after-record lists only what was delivered.
TEST(ReclaimExecute, OnlyDeliveredSignalsAreReportedSent) {
    Children children;
    const pid_t pid = children.start(Behaviour::cooperative);
    std::size_t sending = 0;
    std::size_t sent = 0;
    const ExecuteResult result =
        execute_plan(plan_of({Children::identity(pid)}), HostRoots{}, quick(5),
                     {.sending =
                          [&](const std::vector<SignalSend>& sends, const ExecuteResult&) {
                              sending += sends.size();
                              // It exits and is reaped before the signal goes out: the pidfd then
                              // names no process (ESRCH).
                              ::kill(pid, SIGKILL);
                              children.reap(pid);
                          },
                      .sent = [&](const std::vector<SignalSend>& sends,
                                  const ExecuteResult&) { sent += sends.size(); }});
    EXPECT_EQ(sending, 1U);
    EXPECT_EQ(sent, 0U);
    EXPECT_EQ(result.targets.at(0).outcome, Outcome::exited);
    EXPECT_TRUE(result.targets.at(0).signals_sent.empty());
}

}  // namespace
}  // namespace gpukill::reclaim

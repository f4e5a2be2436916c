// The engine called in-process, as the agent and the MCP server will call it, against
// real gpusim workloads: a plan previewed and then carried out, a plan refused for a
// target replaced under the same PID, a reset that needs the engine's own NVML session
// let go, the guard driven by the caller's clock. Every record names its actor.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>

#include "engine/guard.hpp"
#include "engine/health_check.hpp"
#include "engine/kill.hpp"
#include "engine/reset.hpp"
#include "engine_support.hpp"
#include "guard/policy_yaml.hpp"
#include "support.hpp"

namespace gpukill::testing {
namespace {

constexpr std::uint64_t GiB = 1ULL << 30;

engine::KillRequest kill_pid(pid_t pid) {
    engine::KillRequest request;
    request.pids = {std::to_string(pid)};
    request.timeout_seconds = 2;
    request.verify_timeout_seconds = 5;
    request.command = "test: kill " + std::to_string(pid);
    return request;
}

void expect_actor(const std::vector<nlohmann::json>& records, const Actor& actor) {
    ASSERT_FALSE(records.empty());
    for (const auto& record : records) {
        EXPECT_EQ(record["actor"]["interface"], to_string(actor.interface)) << record.dump();
        EXPECT_EQ(record["actor"]["name"], actor.name) << record.dump();
        EXPECT_EQ(record["actor"]["remote"],
                  actor.remote ? nlohmann::json(*actor.remote) : nlohmann::json(nullptr));
    }
}

std::vector<std::string> events_of(const std::vector<nlohmann::json>& records) {
    std::vector<std::string> events;
    for (const auto& record : records) events.push_back(record["event"]);
    return events;
}

TEST(EngineKill, APreviewIsCarriedOutExactlyAndEveryRecordNamesTheActor) {
    SimulatedHost host;
    Workload job = host.run({"--gpu", "0", "--mem", "3G", "--workers", "1"});
    Workload bystander = host.run({"--gpu", "1", "--mem", "1G"});
    auto engine = open_engine_on(host);
    const Actor actor{.interface = Interface::mcp, .name = "assistant", .remote = std::nullopt};

    auto preview = engine::plan_kill(*engine, kill_pid(job.pid()), actor);
    ASSERT_TRUE(preview) << preview.error().what;
    ASSERT_EQ(preview->plan.targets.size(), 2u);  // the worker holding the same GPU too
    EXPECT_EQ(preview->plan_id.size(), 16u);
    EXPECT_FALSE(preview->results);
    EXPECT_TRUE(process_alive(job.pid()));  // a preview signals nothing

    engine::KillOutcome done = engine::execute_kill(*engine, *preview, actor);
    EXPECT_EQ(done.code, 0);
    ASSERT_TRUE(done.results);
    for (const auto& result : *done.results) {
        EXPECT_EQ(result.outcome, reclaim::Outcome::terminated) << result.target.identity.pid;
    }
    ASSERT_TRUE(done.releases);
    ASSERT_EQ(done.releases->size(), 1u);
    EXPECT_TRUE((*done.releases)[0].released);
    EXPECT_EQ((*done.releases)[0].memory_reclaimed_bytes, 3 * GiB);
    EXPECT_FALSE(process_alive(job.pid()));
    EXPECT_FALSE(process_alive(job.workers().at(0)));
    EXPECT_TRUE(process_alive(bystander.pid()));
    EXPECT_EQ(engine->snapshot().snapshot.gpus.at(0).reading.memory_used_bytes,
              std::optional<std::uint64_t>(0));

    const auto records = audit_log_of(host);
    expect_actor(records, actor);
    const auto events = events_of(records);
    EXPECT_EQ(events, (std::vector<std::string>{"planned", "signalled", "signalled", "result",
                                                "result", "verified"}));
    std::set<std::string> runs;
    for (const auto& record : records) runs.insert(record["run_id"]);
    EXPECT_EQ(runs.size(), 1u);  // the preview and its execution are one run
    EXPECT_EQ(records.front()["command"], "test: kill " + std::to_string(job.pid()));
}

// A process started under `pid` once its holder is gone, by asking the kernel for that
// PID next (ns_last_pid, root only). Other processes on the host may take it first, so
// it tries again; empty when it cannot be done here.
std::optional<Workload> start_under_pid(SimulatedHost& host, pid_t pid,
                                        const std::vector<std::string>& args) {
    for (int attempt = 0; attempt < 50; ++attempt) {
        const int fd = ::open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
        if (fd < 0) return std::nullopt;
        const std::string last = std::to_string(pid - 1);
        const bool written =
            ::write(fd, last.data(), last.size()) == static_cast<ssize_t>(last.size());
        ::close(fd);
        if (!written) return std::nullopt;
        Workload started = host.run(args);
        if (started.pid() == pid) return started;
    }
    return std::nullopt;
}

TEST(EngineKill, APlanIsNeverCarriedOutOnAProcessThatReplacedItsTarget) {
    SimulatedHost host;
    auto engine = open_engine_on(host);
    const Actor actor{.interface = Interface::agent, .name = "ops", .remote = "127.0.0.1:41000"};
    Workload first = host.run({"--gpu", "0", "--mem", "2G"});
    const pid_t pid = first.pid();
    auto preview = engine::plan_kill(*engine, kill_pid(pid), actor);
    ASSERT_TRUE(preview) << preview.error().what;
    ASSERT_EQ(preview->plan.targets.size(), 1u);

    first.kill_all();  // the planned process ends; another takes its PID
    std::optional<Workload> second = start_under_pid(host, pid, {"--gpu", "0", "--mem", "1G"});
    if (!second) GTEST_SKIP() << "cannot choose the next PID here (needs root)";
    ASSERT_NE(second->start_time_ticks(), first.start_time_ticks());

    // Confirming the previewed plan by its identity is refused: the plan is not the same.
    engine::KillRequest confirm = kill_pid(pid);
    confirm.expected_plan_id = preview->plan_id;
    auto refused = engine::kill(*engine, confirm, actor);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().category, ErrorCategory::conflict);
    EXPECT_TRUE(process_alive(pid));

    // Carrying out the held plan itself: the binding finds another process at that PID.
    engine::KillOutcome done = engine::execute_kill(*engine, *preview, actor);
    ASSERT_TRUE(done.results);
    ASSERT_EQ(done.results->size(), 1u);
    EXPECT_EQ((*done.results)[0].outcome, reclaim::Outcome::gone);
    EXPECT_TRUE((*done.results)[0].signals_sent.empty());
    EXPECT_NE((*done.results)[0].note.value_or("").find("reused"), std::string::npos)
        << (*done.results)[0].note.value_or("");
    EXPECT_TRUE(process_alive(pid));  // the new process was never signalled

    const auto records = audit_log_of(host);
    expect_actor(records, actor);
    for (const auto& record : records) EXPECT_NE(record["event"], "signalled") << record.dump();
}

TEST(EngineKill, BadRequestsAreErrorsWithACategoryAndLeaveNoRecord) {
    SimulatedHost host;
    auto engine = open_engine_on(host);
    const Actor actor{.interface = Interface::library, .name = "test", .remote = std::nullopt};
    engine::KillRequest nothing;
    auto no_target = engine::plan_kill(*engine, nothing, actor);
    ASSERT_FALSE(no_target);
    EXPECT_EQ(no_target.error().category, ErrorCategory::invalid_input);

    engine::KillRequest bad_signal = kill_pid(::getpid());
    bad_signal.signal = "SIGNOPE";
    EXPECT_EQ(engine::plan_kill(*engine, bad_signal, actor).error().category,
              ErrorCategory::invalid_input);

    engine::KillRequest no_gpu;
    no_gpu.gpu = "7";
    EXPECT_EQ(engine::plan_kill(*engine, no_gpu, actor).error().category, ErrorCategory::not_found);
    EXPECT_TRUE(audit_log_of(host).empty());

    // gpukill itself is refused by the plan, not by an error: the refusal is recorded.
    auto self = engine::kill(*engine, kill_pid(::getpid()), actor);
    ASSERT_TRUE(self) << self.error().what;
    EXPECT_TRUE(self->plan.aborted());
    EXPECT_EQ(self->code, 3);
    EXPECT_EQ(events_of(audit_log_of(host)), (std::vector<std::string>{"planned", "refused"}));
}

bool holds_device_file(const std::string& node) {
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
        std::error_code error;
        if (std::filesystem::read_symlink(entry.path(), error).string() == node) return true;
    }
    return false;
}

TEST(EngineReset, ForceResetsAGpuTheEnginesOwnDriverSessionHolds) {
    if (::geteuid() != 0) GTEST_SKIP() << "a reset needs root";
    SimulatedHost host;
    Workload holder = host.run({"--gpu", "0", "--mem", "2G"});
    host.leak(0, "1G");
    auto engine = open_engine_on(host);
    // As the real libnvidia-ml does, the open session holds the device file: nvidia-smi
    // would refuse the reset unless the engine lets go of it.
    ASSERT_TRUE(holds_device_file(host.env().at("GPUKILL_DEVFS") + "/nvidia0"));
    const Actor actor{.interface = Interface::agent, .name = "ops", .remote = "10.1.2.3:5000"};

    auto outcome =
        engine::reset(*engine,
                      engine::ResetRequest{
                          .gpus = "0", .force = true, .timeout_seconds = 1, .command = "reset 0"},
                      actor);
    ASSERT_TRUE(outcome) << outcome.error().what;
    EXPECT_EQ(outcome->code, 0) << (outcome->stopped ? *outcome->stopped : "");
    ASSERT_TRUE(outcome->attempts);
    ASSERT_EQ(outcome->attempts->size(), 1u);
    EXPECT_EQ((*outcome->attempts)[0].exit_status, 0) << (*outcome->attempts)[0].output;
    EXPECT_FALSE(process_alive(holder.pid()));

    // The session is back: the same engine reads the GPU again, its memory free.
    EXPECT_TRUE(holds_device_file(host.env().at("GPUKILL_DEVFS") + "/nvidia0"));
    const Snapshot after = engine->snapshot().snapshot;
    ASSERT_FALSE(after.gpus.empty());
    EXPECT_EQ(after.gpus.at(0).reading.memory_used_bytes, std::optional<std::uint64_t>(0));

    const auto records = audit_log_of(host);
    expect_actor(records, actor);
    const auto events = events_of(records);
    EXPECT_EQ(events.front(), "reset_planned");
    EXPECT_EQ(events.back(), "reset_result");
}

struct GuardRun {
    std::vector<engine::GuardEvent> events;
    std::size_t count(engine::GuardEventKind kind) const {
        std::size_t n = 0;
        for (const auto& event : events) n += event.kind == kind ? 1 : 0;
        return n;
    }
};

TEST(EngineGuard, WarnsThenActsWhenTheCallersClockPassesTheGracePeriod) {
    SimulatedHost host;
    Workload hog = host.run({"--gpu", "0", "--mem", "6G", "--name", "hog"});
    auto engine = open_engine_on(host);
    const std::string path = beside(host, "config") + "/guard.yaml";
    std::ofstream(path) << "mode: enforce\nusers:\n  " << current_user_name()
                        << ":\n    memory_limit: 4G\n    action: terminate\n"
                           "    grace_period: 1h\nterminate_timeout: 2s\n";
    GuardRun run;
    const Actor actor{.interface = Interface::guard, .name = "policy", .remote = std::nullopt};
    const auto t0 = std::chrono::system_clock::now();
    auto opened = engine::Guard::open(
        *engine, engine::GuardSetup{.policy_path = path, .command = "test: guard"}, actor,
        [&](const engine::GuardEvent& e) { run.events.push_back(e); }, t0);
    ASSERT_TRUE(opened) << opened.error().what;
    engine::Guard& guard = **opened;
    guard.start();
    EXPECT_EQ(run.count(engine::GuardEventKind::started), 1u);

    guard.cycle(t0);
    EXPECT_EQ(run.count(engine::GuardEventKind::warned), 1u);
    EXPECT_TRUE(process_alive(hog.pid()));
    guard.cycle(t0 + std::chrono::minutes(59));  // in the grace period: nothing more
    EXPECT_EQ(run.count(engine::GuardEventKind::acted), 0u);
    EXPECT_TRUE(process_alive(hog.pid()));
    guard.cycle(t0 + std::chrono::minutes(61));  // past it: terminated
    ASSERT_EQ(run.count(engine::GuardEventKind::acted), 1u);
    EXPECT_NE(run.events.back().text.find("terminated"), std::string::npos)
        << run.events.back().text;
    EXPECT_FALSE(process_alive(hog.pid()));

    const auto records = audit_log_of(host);
    expect_actor(records, actor);
    const auto events = events_of(records);
    for (const char* event : {"guard_warning", "planned", "signalled", "result", "guard_action"}) {
        EXPECT_NE(std::find(events.begin(), events.end(), event), events.end()) << event;
    }

    // A bad new policy through the API keeps the one in force.
    std::ofstream(path) << "mode: enforce\nusers: [\n";
    EXPECT_FALSE(guard.reload_policy());
    EXPECT_EQ(run.count(engine::GuardEventKind::policy_kept), 1u);
    EXPECT_EQ(guard.policy().mode, guard::Mode::enforce);
}

}  // namespace
}  // namespace gpukill::testing

namespace gpukill::testing {
namespace {

const engine::CheckFinding* find_problem(const engine::CheckOutcome& outcome,
                                         const std::string& kind) {
    for (const auto& problem : outcome.problems) {
        if (problem.kind == kind) return &problem;
    }
    return nullptr;
}

bool has_problem(const engine::CheckOutcome& outcome, const std::string& kind) {
    return find_problem(outcome, kind) != nullptr;
}

TEST(EngineCheck, CleanThenOrphanedHolderThenLeakThenUnexpectedUser) {
    SimulatedHost host;
    auto engine = open_engine_on(host);
    engine::CheckRequest request;
    request.rogue = false;
    const auto check = [&] { return engine::health_check(*engine, request).value(); };
    engine::CheckOutcome clean = check();
    EXPECT_EQ(clean.verdict, engine::CheckVerdict::clean) << clean.summary;
    EXPECT_EQ(clean.summary, "clean: 2 GPUs, no problem found");

    Workload job = host.run({"--gpu", "0", "--mem", "2G", "--workers", "1"});
    job.kill_parent();  // the worker lives on, orphaned, holding GPU 0
    engine::CheckOutcome orphaned = check();
    EXPECT_EQ(orphaned.verdict, engine::CheckVerdict::problem);
    ASSERT_TRUE(has_problem(orphaned, "orphaned_holder")) << orphaned.summary;
    EXPECT_EQ(find_problem(orphaned, "orphaned_holder")->pid, job.workers().at(0));
    job.kill_all();

    host.leak(1, "1G");  // used memory no process accounts for, and nothing holds GPU 1
    engine::CheckOutcome leaked = check();
    EXPECT_EQ(leaked.verdict, engine::CheckVerdict::problem);
    ASSERT_TRUE(has_problem(leaked, "soft_locked")) << leaked.summary;
    EXPECT_EQ(find_problem(leaked, "soft_locked")->gpu, 1u);
    request.unaccounted_memory_bytes = 2ULL << 30;  // a threshold above the leak
    EXPECT_FALSE(has_problem(check(), "soft_locked"));

    Workload mine = host.run({"--gpu", "0", "--mem", "1G"});
    request.idle = true;  // a CI runner expects idle GPUs
    engine::CheckOutcome held = check();
    ASSERT_TRUE(has_problem(held, "unexpected_holder")) << held.summary;
    request.idle = false;
    request.allowed_users = {current_user_name()};
    EXPECT_FALSE(has_problem(check(), "unexpected_holder"));
    request.idle = true;
    EXPECT_FALSE(engine::health_check(*engine, request)) << "idle and allowed users contradict";
    EXPECT_TRUE(audit_log_of(host).empty());  // a check records nothing
}

}  // namespace
}  // namespace gpukill::testing

namespace gpukill::testing {
namespace {

TEST(EngineReset, AConfirmationOfAPreviewThatNoLongerHoldsIsRefused) {
    SimulatedHost host;
    Workload holder = host.run({"--gpu", "0", "--mem", "1G"});
    auto engine = open_engine_on(host);
    const Actor actor{.interface = Interface::agent, .name = "ops", .remote = "10.1.2.3:5000"};
    auto preview = engine::reset(
        *engine, engine::ResetRequest{.gpus = "0", .force = true, .dry_run = true}, actor);
    ASSERT_TRUE(preview) << preview.error().what;
    EXPECT_EQ(preview->plan_id.size(), 16u);
    EXPECT_FALSE(preview->attempts);  // a preview resets nothing

    Workload newcomer = host.run({"--gpu", "0", "--mem", "1G"});  // the plan is not the same
    const std::size_t records_before = audit_log_of(host).size();
    auto confirmed = engine::reset(
        *engine,
        engine::ResetRequest{.gpus = "0", .force = true, .expected_plan_id = preview->plan_id},
        actor);
    ASSERT_FALSE(confirmed);
    EXPECT_EQ(confirmed.error().category, ErrorCategory::conflict);
    EXPECT_TRUE(process_alive(holder.pid()));
    EXPECT_TRUE(process_alive(newcomer.pid()));
    EXPECT_EQ(audit_log_of(host).size(), records_before);  // refused before anything
}

}  // namespace
}  // namespace gpukill::testing

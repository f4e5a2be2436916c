// `gpukill kill` against real gpusim workloads: who is alive afterwards, what
// memory came back, what the JSON and the audit log say.
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include "support.hpp"

namespace gpukill::testing {
namespace {

constexpr std::uint64_t GiB = 1ULL << 30;

struct KillRun {
    CommandResult result;
    nlohmann::json doc;
};

KillRun kill_json(const SimulatedHost& host, std::vector<std::string> args,
                  const std::map<std::string, std::string>& env = {}) {
    args.insert(args.begin(), "kill");
    args.push_back("--json");
    KillRun run{host.gpukill(args, env), {}};
    if (!run.result.out.empty()) run.doc = nlohmann::json::parse(run.result.out);
    return run;
}

const nlohmann::json* target(const nlohmann::json& doc, pid_t pid) {
    for (const auto& t : doc["targets"]) {
        if (t["pid"] == pid) return &t;
    }
    return nullptr;
}

std::uint64_t used(const SimulatedHost& host, unsigned gpu) {
    return host.list_json()["gpus"][gpu]["memory_used_bytes"].get<std::uint64_t>();
}

TEST(Kill, ACooperativeProcessIsTerminatedAndItsMemoryComesBack) {
    SimulatedHost host;
    Workload w = host.run({"--gpu", "0", "--mem", "2G"});
    KillRun run = kill_json(host, {"--pid", std::to_string(w.pid())});
    ASSERT_EQ(run.result.exit_code, 0) << run.result.err << run.result.out;
    const nlohmann::json* t = target(run.doc, w.pid());
    ASSERT_NE(t, nullptr) << run.result.out;
    EXPECT_EQ((*t)["outcome"], "terminated");
    EXPECT_EQ((*t)["signals_sent"], nlohmann::json({"SIGTERM"}));
    EXPECT_EQ((*t)["reason"], "named_pid");
    ASSERT_EQ(run.doc["gpus"].size(), 1u);
    EXPECT_EQ(run.doc["gpus"][0]["index"], 0);
    EXPECT_EQ(run.doc["gpus"][0]["memory_reclaimed_bytes"], 2 * GiB);
    EXPECT_EQ(run.doc["gpus"][0]["released"], true);
    EXPECT_FALSE(process_alive(w.pid()));
    EXPECT_EQ(used(host, 0), 0u);
}

TEST(Kill, AProcessIgnoringTermSurvivesWithoutForceAndDiesWithIt) {
    SimulatedHost host;
    Workload w = host.run({"--gpu", "1", "--mem", "1G", "--ignore-term"});
    KillRun soft = kill_json(host, {"--pid", std::to_string(w.pid()), "--timeout-secs", "0.3",
                                    "--verify-timeout", "0.2"});
    EXPECT_EQ(soft.result.exit_code, 6) << soft.result.out;
    EXPECT_EQ((*target(soft.doc, w.pid()))["outcome"], "survived");
    EXPECT_TRUE(process_alive(w.pid()));

    KillRun hard =
        kill_json(host, {"--pid", std::to_string(w.pid()), "--timeout-secs", "0.3", "--force"});
    ASSERT_EQ(hard.result.exit_code, 0) << hard.result.out;
    const nlohmann::json* t = target(hard.doc, w.pid());
    EXPECT_EQ((*t)["outcome"], "killed");
    EXPECT_EQ((*t)["signals_sent"], nlohmann::json({"SIGTERM", "SIGKILL"}));
    EXPECT_FALSE(process_alive(w.pid()));
    EXPECT_EQ(hard.doc["gpus"][0]["memory_reclaimed_bytes"], GiB);
}

TEST(Kill, ATermDelayShorterThanTheTimeoutIsATerminationLongerNeedsForce) {
    SimulatedHost host;
    Workload quick = host.run({"--gpu", "0", "--mem", "1G", "--term-delay", "0.2"});
    Workload slow = host.run({"--gpu", "1", "--mem", "1G", "--term-delay", "30"});
    KillRun a = kill_json(host, {"--pid", std::to_string(quick.pid()), "--timeout-secs", "5"});
    EXPECT_EQ(a.result.exit_code, 0) << a.result.out;
    EXPECT_EQ((*target(a.doc, quick.pid()))["outcome"], "terminated");
    EXPECT_GE((*target(a.doc, quick.pid()))["seconds"].get<double>(), 0.15);

    KillRun b =
        kill_json(host, {"--pid", std::to_string(slow.pid()), "--timeout-secs", "0.3", "--force"});
    EXPECT_EQ(b.result.exit_code, 0) << b.result.out;
    EXPECT_EQ((*target(b.doc, slow.pid()))["outcome"], "killed");
    EXPECT_FALSE(process_alive(slow.pid()));
}

TEST(Kill, KillingAParentTakesItsWorkersHoldingTheSameGpu) {
    SimulatedHost host;
    Workload job = host.run({"--gpu", "0", "--mem", "3G", "--workers", "2"});
    KillRun run = kill_json(host, {"--pid", std::to_string(job.pid())});
    ASSERT_EQ(run.result.exit_code, 0) << run.result.out;
    for (pid_t worker : job.workers()) {
        const nlohmann::json* t = target(run.doc, worker);
        ASSERT_NE(t, nullptr) << run.result.out;
        EXPECT_EQ((*t)["reason"], "holds_same_gpu");
        EXPECT_FALSE(process_alive(worker));
    }
    EXPECT_EQ(run.doc["gpus"][0]["memory_reclaimed_bytes"], 3 * GiB);
    EXPECT_EQ(used(host, 0), 0u);
}

TEST(Kill, OrphanedWorkersHoldingMemoryAreReclaimedByGpuWithBatch) {
    SimulatedHost host;
    Workload job = host.run({"--gpu", "1", "--mem", "4G", "--workers", "2"});
    job.kill_parent();  // kill -9 "did nothing": 4 GiB stay used
    ASSERT_EQ(used(host, 1), 4 * GiB);

    KillRun preview = kill_json(host, {"--gpu", "1"});
    EXPECT_EQ(preview.result.exit_code, 2) << preview.result.out;
    EXPECT_EQ(preview.doc["executed"], false);
    for (pid_t worker : job.workers()) EXPECT_TRUE(process_alive(worker));

    KillRun run = kill_json(host, {"--gpu", "1", "--orphaned", "--batch"});
    ASSERT_EQ(run.result.exit_code, 0) << run.result.out;
    for (pid_t worker : job.workers()) {
        ASSERT_NE(target(run.doc, worker), nullptr);
        EXPECT_FALSE(process_alive(worker));
    }
    EXPECT_EQ(run.doc["gpus"][0]["memory_reclaimed_bytes"], 4 * GiB);
    EXPECT_EQ(run.doc["gpus"][0]["released"], true);
}

TEST(Kill, MemoryLeftWithNoHolderIsReportedAsSoftLocked) {
    SimulatedHost host;
    Workload job = host.run({"--gpu", "0", "--mem", "2G", "--workers", "1"});
    job.kill_parent();
    host.leak(0, "1G");
    KillRun run = kill_json(host, {"--gpu", "0", "--batch", "--verify-timeout", "0.3"});
    EXPECT_EQ(run.result.exit_code, 7) << run.result.out;
    EXPECT_EQ(run.doc["gpus"][0]["soft_locked"], true);
    EXPECT_EQ(run.doc["gpus"][0]["memory_reclaimed_bytes"], 2 * GiB);
    CommandResult table = host.gpukill({"kill", "--gpu", "0", "--batch"});
    EXPECT_EQ(table.exit_code, 0) << table.out;  // nothing left to signal
}

TEST(Kill, EveryRefusedPidFormExitsThreeAndSignalsNothing) {
    SimulatedHost host;
    Workload bystander = host.run({"--gpu", "0", "--mem", "1G"});
    const std::string alive = std::to_string(bystander.pid());
    for (const std::string& bad :
         {std::string("0"), std::string("1"), std::string("99999999"), std::string("abc"),
          std::string("4x"), std::to_string(getpid())}) {
        CommandResult r = host.gpukill({"kill", "--pid", alive, "--pid", bad});
        EXPECT_EQ(r.exit_code, 3) << bad << ": " << r.out << r.err;
        EXPECT_TRUE(process_alive(bystander.pid())) << bad;
    }
    CommandResult negative = host.gpukill({"kill", "--pid=-1"});
    EXPECT_EQ(negative.exit_code, 3) << negative.out << negative.err;
    EXPECT_TRUE(process_alive(bystander.pid()));
}

// A process of the test's own with a second thread, whose id it reports on a pipe: the
// kernel lets that id be looked up as /proc/TID although no listing shows it.
class ThreadedProcess {
  public:
    ThreadedProcess() {
        int fds[2];
        if (pipe(fds) != 0) throw std::runtime_error("pipe");
        pid_ = fork();
        if (pid_ == 0) {
            close(fds[0]);
            std::thread([fd = fds[1]] {
                const pid_t tid = static_cast<pid_t>(syscall(SYS_gettid));
                (void)!write(fd, &tid, sizeof tid);
                close(fd);
                for (;;) pause();
            }).detach();
            for (;;) pause();
        }
        close(fds[1]);
        pollfd ready{fds[0], POLLIN, 0};
        if (pid_ < 0 || poll(&ready, 1, 10000) != 1 ||
            read(fds[0], &thread_, sizeof thread_) != sizeof thread_) {
            close(fds[0]);
            throw std::runtime_error("the threaded process did not start");
        }
        close(fds[0]);
    }
    ~ThreadedProcess() {
        if (pid_ > 0) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
    }
    ThreadedProcess(const ThreadedProcess&) = delete;
    ThreadedProcess& operator=(const ThreadedProcess&) = delete;
    pid_t pid() const { return pid_; }
    pid_t thread() const { return thread_; }

  private:
    pid_t pid_ = -1;
    pid_t thread_ = -1;
};

// Signals and pidfds address processes: a thread's id is refused up front with one line
// that names its process, before anything is planned or recorded.
TEST(Kill, AThreadIdIsRefusedAndItsProcessNamed) {
    SimulatedHost host;
    ThreadedProcess process;
    ASSERT_NE(process.thread(), process.pid());
    const std::string tid = std::to_string(process.thread());
    for (bool dry_run : {true, false}) {
        std::vector<std::string> args = {"kill", "--pid", tid, "--any-process"};
        if (dry_run) args.push_back("--dry-run");
        CommandResult r = host.gpukill(args);
        EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
        EXPECT_EQ(r.err, "gpukill: PID " + tid + " is a thread of process " +
                             std::to_string(process.pid()) +
                             ", not a process: name the process "
                             "(--pid " +
                             std::to_string(process.pid()) + ")\n");
        EXPECT_TRUE(process_alive(process.pid()));
    }
    // Its process itself is planned as any other.
    CommandResult own = host.gpukill(
        {"kill", "--pid", std::to_string(process.pid()), "--any-process", "--dry-run"});
    EXPECT_EQ(own.exit_code, 0) << own.out << own.err;
}

// (Protection by program, which needs root's files: protected_program_test.cpp.)
TEST(Kill, AProtectedProcessIsNeverSignalled) {
    SimulatedHost host;
    std::string config = host.root() + "/../config";
    std::filesystem::create_directories(config);
    Workload server = host.run({"--gpu", "0", "--mem", "1G", "--name", "inference-srv"});
    Workload job = host.run({"--gpu", "0", "--mem", "1G"});
    std::ofstream(config + "/protected.yaml") << "pids: [" << server.pid() << "]\n";
    std::map<std::string, std::string> env = {{"GPUKILL_CONFIG_DIR", config}};

    KillRun named = kill_json(host, {"--pid", std::to_string(server.pid()), "--force"}, env);
    EXPECT_EQ(named.result.exit_code, 3) << named.result.out;
    EXPECT_TRUE(process_alive(server.pid()));

    KillRun batch = kill_json(host, {"--gpu", "0", "--batch", "--force"}, env);
    EXPECT_EQ(batch.result.exit_code, 0) << batch.result.out;
    EXPECT_TRUE(process_alive(server.pid()));
    EXPECT_FALSE(process_alive(job.pid()));
    const nlohmann::json* refused = target(batch.doc, server.pid());
    ASSERT_NE(refused, nullptr) << batch.result.out;
    EXPECT_EQ((*refused)["outcome"], "refused");
    EXPECT_EQ((*refused)["refusal"], "protected_process");
}

TEST(Kill, DryRunLeavesEveryTargetAliveAndShowsThePlan) {
    SimulatedHost host;
    Workload job = host.run({"--gpu", "0", "--mem", "1G", "--workers", "2"});
    KillRun run = kill_json(host, {"--pid", std::to_string(job.pid()), "--dry-run", "--force"});
    ASSERT_EQ(run.result.exit_code, 0) << run.result.out;
    EXPECT_EQ(run.doc["dry_run"], true);
    EXPECT_EQ(run.doc["executed"], false);
    EXPECT_EQ(run.doc["targets"].size(), 3u);
    EXPECT_EQ(run.doc["planned_signals"], nlohmann::json({"SIGTERM", "SIGKILL"}));
    EXPECT_TRUE(process_alive(job.pid()));
    for (pid_t worker : job.workers()) EXPECT_TRUE(process_alive(worker));
    CommandResult safe = host.gpukill({"kill", "--pid", std::to_string(job.pid()), "--safe"});
    EXPECT_EQ(safe.exit_code, 0);
    EXPECT_NE(safe.out.find("Dry run"), std::string::npos) << safe.out;
    EXPECT_TRUE(process_alive(job.pid()));
}

TEST(Kill, CompatibleFormsKillToo) {
    SimulatedHost host;
    Workload a = host.run({"--gpu", "0", "--mem", "1G"});
    Workload b = host.run({"--gpu", "1", "--mem", "1G"});
    CommandResult compat = host.gpukill({"--kill", "--pid", std::to_string(a.pid())});
    EXPECT_EQ(compat.exit_code, 0) << compat.out << compat.err;
    EXPECT_FALSE(process_alive(a.pid()));
    CommandResult short_form = host.gpukill({std::to_string(b.pid())});
    EXPECT_EQ(short_form.exit_code, 0) << short_form.out << short_form.err;
    EXPECT_FALSE(process_alive(b.pid()));
}

TEST(Kill, ABatchByNameTakesEveryMatchAndOnlyThem) {
    SimulatedHost host;
    std::vector<Workload> jobs;
    for (int i = 0; i < 12; ++i) {
        jobs.push_back(host.run({"--gpu", std::to_string(i % 2), "--mem", "256M", "--name",
                                 "stuckjob", i % 3 == 0 ? "--ignore-term" : "--util=10"}));
    }
    Workload other = host.run({"--gpu", "0", "--mem", "256M", "--name", "keeper"});
    KillRun run =
        kill_json(host, {"--filter", "^stuckjob$", "--batch", "--force", "--timeout-secs", "0.5"});
    ASSERT_EQ(run.result.exit_code, 0) << run.result.out;
    for (const Workload& job : jobs) EXPECT_FALSE(process_alive(job.pid()));
    EXPECT_TRUE(process_alive(other.pid()));
    EXPECT_EQ(used(host, 1), 0u);
}

// std::regex once read these repeat counts as overflowed ones and matched every holder.
TEST(Kill, AFilterThatCannotBeCompiledExactlyIsRefusedAndSignalsNothing) {
    SimulatedHost host;
    Workload job = host.run({"--gpu", "0", "--mem", "256M", "--name", "trainer"});
    for (const std::string pattern :
         {"x{4294967296}", "q{18446744073709551616}", "q{2147483648,}", "(a)\\1"}) {
        CommandResult r = host.gpukill({"kill", "--filter", pattern, "--batch", "--force"});
        EXPECT_EQ(r.exit_code, 3) << pattern << ": " << r.out << r.err;
        EXPECT_NE(r.err.find("invalid --filter"), std::string::npos) << pattern << ": " << r.err;
        EXPECT_TRUE(process_alive(job.pid())) << pattern;
    }
    // A pattern that backtracking engines take minutes on is answered at once.
    CommandResult slow = host.gpukill({"kill", "--filter", "(a|a)*$x", "--batch", "--dry-run"});
    EXPECT_EQ(slow.exit_code, 0) << slow.out << slow.err;
    EXPECT_TRUE(process_alive(job.pid()));
}

// The system call a process sleeps in: the first field of /proc/PID/syscall.
std::optional<long> current_syscall(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/syscall");
    long number = -1;
    if (!(in >> number)) return std::nullopt;
    return number;
}

// Whether a `gpusim run --term-delay` workload, asleep in sigsuspend until SIGTERM arrives
// and in a timed sleep after, has been delivered its SIGTERM: the change of system call
// is the moment (bounded: 10 s).
bool sigterm_arrived(pid_t workload) {
    constexpr long kRtSigsuspend = 130;  // x86-64
    for (int i = 0; i < 1000; ++i) {
        auto call = current_syscall(workload);
        if (call && *call != kRtSigsuspend) return true;
        usleep(10'000);
    }
    return false;
}

// `gpukill kill --pid P --timeout-secs 60` (and `extra` options) run as a terminal would,
// its output discarded (an interrupt note to a closed stderr would end it by SIGPIPE),
// so that a signal sent to it reaches gpukill itself.
std::unique_ptr<RunningCommand> start_long_kill(const SimulatedHost& host, pid_t pid,
                                                const std::string& extra = "") {
    return std::make_unique<RunningCommand>(
        std::vector<std::string>{"/bin/sh", "-c",
                                 "exec " + std::string(GPUKILL_BIN) + " kill --pid " +
                                     std::to_string(pid) + extra +
                                     " --timeout-secs 60 2>/dev/null"},
        host.env());
}

// Ctrl-C after the first signal: gpukill stops waiting and escalating, and the audit log
// still says what was sent (it once held only `planned`).
TEST(Kill, CtrlCDuringAKillStillRecordsTheSignalsSent) {
#if !defined(__x86_64__)
    GTEST_SKIP() << "reads x86-64 system call numbers from /proc/PID/syscall";
#endif
    SimulatedHost host;
    // It handles SIGTERM by lingering 60 s before it exits.
    Workload slow = host.run({"--gpu", "0", "--mem", "1G", "--term-delay", "60"});
    auto kill = start_long_kill(host, slow.pid(), " --force");
    ASSERT_TRUE(sigterm_arrived(slow.pid())) << "SIGTERM never reached the workload";
    kill->send_signal(SIGINT);
    EXPECT_EQ(kill->wait(), 130);
    EXPECT_TRUE(process_alive(slow.pid()));  // no SIGKILL after the interrupt

    std::ifstream log(host.env().at("GPUKILL_STATE_DIR") + "/audit.jsonl");
    std::vector<std::string> events;
    nlohmann::json result;
    for (std::string line; std::getline(log, line);) {
        auto record = nlohmann::json::parse(line);
        events.push_back(record["event"]);
        if (record["event"] == "result") result = record;
    }
    EXPECT_EQ(events,
              (std::vector<std::string>{"planned", "signal_intent", "signalled", "result"}));
    EXPECT_EQ(result["target"]["pid"], slow.pid());
    EXPECT_EQ(result["signals_sent"], nlohmann::json::array({"SIGTERM"}));
    EXPECT_EQ(result["outcome"], "survived");
}

// A terminal closed during a kill (SIGHUP) ends it as Ctrl-C does: the records of the
// signal sent and the result are written (a SIGHUP once ended gpukill with only
// `planned` in the log, though the target had been sent SIGTERM).
TEST(Kill, AHangupDuringAKillIsAnInterruptAndTheSignalSentIsRecorded) {
    SimulatedHost host;
    Workload stubborn = host.run({"--gpu", "0", "--mem", "1G", "--ignore-term"});
    auto kill = start_long_kill(host, stubborn.pid());
    ASSERT_TRUE(wait_for_audit_record(host, "signalled", stubborn.pid()))
        << "no signalled record while the kill waits its 60 s";
    kill->send_signal(SIGHUP);
    EXPECT_EQ(kill->wait(), 130) << "SIGHUP ends a kill as an interrupt";
    EXPECT_TRUE(process_alive(stubborn.pid()));  // nothing more was sent

    std::vector<std::string> events;
    nlohmann::json intent;
    nlohmann::json result;
    for (const nlohmann::json& record : audit_records_about(host, stubborn.pid())) {
        events.push_back(record["event"]);
        if (record["event"] == "signal_intent") intent = record;
        if (record["event"] == "result") result = record;
    }
    EXPECT_EQ(events, (std::vector<std::string>{"signal_intent", "signalled", "result"}));
    EXPECT_EQ(intent["signal"], "SIGTERM");
    EXPECT_EQ(intent["target"]["start_time_ticks"], stubborn.start_time_ticks());
    EXPECT_EQ(result["outcome"], "survived");
    EXPECT_NE(result["note"].get<std::string>().find("interrupted"), std::string::npos)
        << result.dump();
}

// SIGKILL cannot be caught: gpukill ended right after its signal went out still leaves a
// log naming that signal, because the intent is written and synced before the send.
TEST(Kill, ASigkillRightAfterTheSignalLeavesItsIntentInTheLog) {
#if !defined(__x86_64__)
    GTEST_SKIP() << "reads x86-64 system call numbers from /proc/PID/syscall";
#endif
    SimulatedHost host;
    Workload slow = host.run({"--gpu", "0", "--mem", "1G", "--term-delay", "60"});
    auto kill = start_long_kill(host, slow.pid());
    ASSERT_TRUE(sigterm_arrived(slow.pid())) << "SIGTERM never reached the workload";
    kill->send_signal(SIGKILL);
    EXPECT_EQ(kill->wait(), 128 + SIGKILL);

    bool intent_recorded = false;
    for (const nlohmann::json& record : audit_records_about(host, slow.pid())) {
        if (record["event"] == "signal_intent" && record["signal"] == "SIGTERM" &&
            record["target"]["start_time_ticks"] == slow.start_time_ticks()) {
            intent_recorded = true;
        }
    }
    EXPECT_TRUE(intent_recorded) << "the log does not name the SIGTERM the workload received";
}

// Out of file descriptors, a kill either does all of its work or says that gpukill
// failed (exit 1): never "permission denied" (exit 4) for root, never a silent half.
// Ctrl-C while gpukill waits for the memory to come back ends the wait at once.
TEST(Kill, CtrlCDuringVerificationEndsItAtOnce) {
    SimulatedHost host;
    Workload job = host.run({"--gpu", "0", "--mem", "1G", "--workers", "1"});
    ASSERT_EQ(job.workers().size(), 1u);
    // The protected worker keeps the GPU held, so the memory never comes back.
    const std::string config = host.root() + "/../config";
    std::filesystem::create_directories(config);
    std::ofstream(config + "/protected.yaml") << "pids: [" << job.workers()[0] << "]\n";
    auto env = host.env();
    env["GPUKILL_CONFIG_DIR"] = config;
    RunningCommand kill({"/bin/sh", "-c",
                         "exec " + std::string(GPUKILL_BIN) + " kill --pid " +
                             std::to_string(job.pid()) + " --verify-timeout 60 2>/dev/null"},
                        env);
    const std::string log = env.at("GPUKILL_STATE_DIR") + "/audit.jsonl";
    bool verifying = false;  // the result is recorded just before verification starts
    for (int i = 0; i < 2000 && !verifying; ++i) {  // bounded: 20 s
        std::ifstream in(log);
        const std::string text((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
        verifying = text.find("\"event\":\"result\"") != std::string::npos;
        if (!verifying) usleep(10'000);
    }
    ASSERT_TRUE(verifying) << "the kill never reached its verification";
    const auto start = std::chrono::steady_clock::now();
    kill.send_signal(SIGINT);
    EXPECT_EQ(kill.wait(), 130);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
    EXPECT_FALSE(process_alive(job.pid()));
    EXPECT_TRUE(process_alive(job.workers()[0]));
}

TEST(Kill, RunningOutOfDescriptorsIsAFailureNotAPermissionError) {
    if (geteuid() != 0) GTEST_SKIP() << "as root, exit 4 can only be a misreport";
    SimulatedHost host;
    for (int limit = 6; limit <= 12; ++limit) {
        Workload job = host.run({"--gpu", "0", "--mem", "1G", "--workers", "2"});
        CommandResult r = run_command(
            {"/bin/sh", "-c",
             "ulimit -n " + std::to_string(limit) + "; exec " + std::string(GPUKILL_BIN) +
                 " kill --pid " + std::to_string(job.pid()) + " --force --timeout-secs 2"},
            host.env());
        EXPECT_NE(r.exit_code, 4) << "ulimit -n " << limit << ": " << r.out << r.err;
        if (r.exit_code == 0) {
            EXPECT_FALSE(process_alive(job.pid())) << limit;
            for (pid_t worker : job.workers()) EXPECT_FALSE(process_alive(worker)) << limit;
        }
    }
}

TEST(Kill, EveryActionIsInTheAuditLog) {
    SimulatedHost host;
    std::string state = host.root() + "/../state";
    Workload w = host.run({"--gpu", "0", "--mem", "1G"});
    CommandResult r =
        host.gpukill({"kill", "--pid", std::to_string(w.pid())}, {{"GPUKILL_STATE_DIR", state}});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    std::ifstream log(state + "/audit.jsonl");
    ASSERT_TRUE(log.good());
    std::vector<nlohmann::json> records;
    for (std::string line; std::getline(log, line);) records.push_back(nlohmann::json::parse(line));
    auto has = [&](const std::string& event) {
        return std::any_of(records.begin(), records.end(),
                           [&](const nlohmann::json& record) { return record["event"] == event; });
    };
    EXPECT_TRUE(has("planned"));
    EXPECT_TRUE(has("result"));
    EXPECT_TRUE(has("verified"));
    bool saw_target = false;
    for (const auto& record : records) {
        if (record["event"] == "result" &&
            record.dump().find(std::to_string(w.pid())) != std::string::npos) {
            saw_target = record.dump().find("terminated") != std::string::npos;
        }
    }
    EXPECT_TRUE(saw_target) << records.size() << " records";
}

TEST(Kill, SelectorsNarrowByMemoryUserAndDriverListing) {
    SimulatedHost host;
    Workload small = host.run({"--gpu", "0", "--mem", "512M"});
    Workload big = host.run({"--gpu", "0", "--mem", "3G", "--workers", "1"});
    // --min-memory: only the 3 GiB job (and its worker, which holds the same GPU).
    KillRun plan = kill_json(host, {"--gpu", "0", "--min-memory", "2G", "--dry-run"});
    ASSERT_EQ(plan.result.exit_code, 0) << plan.result.out;
    EXPECT_NE(target(plan.doc, big.pid()), nullptr);
    EXPECT_EQ(target(plan.doc, small.pid()), nullptr);
    // --unlisted: the worker is seen only by its device file.
    KillRun unlisted = kill_json(host, {"--gpu", "0", "--unlisted", "--dry-run"});
    ASSERT_EQ(unlisted.result.exit_code, 0) << unlisted.result.out;
    ASSERT_EQ(unlisted.doc["targets"].size(), 1u) << unlisted.result.out;
    EXPECT_EQ(unlisted.doc["targets"][0]["pid"], big.workers().at(0));
    // --user: exact names only.
    KillRun mine = kill_json(host, {"--gpu", "0", "--user", current_user_name(), "--dry-run"});
    EXPECT_EQ(mine.doc["targets"].size(), 3u) << mine.result.out;
    KillRun prefix =
        kill_json(host, {"--gpu", "0", "--user", current_user_name().substr(0, 2), "--dry-run"});
    EXPECT_EQ(prefix.doc["targets"].size(), 0u) << prefix.result.out;
    EXPECT_EQ(host.gpukill({"kill", "--gpu", "0", "--min-memory", "lots"}).exit_code, 3);
}

TEST(Kill, AnotherFirstSignalCanBeChosen) {
    SimulatedHost host;
    Workload w = host.run({"--gpu", "0", "--mem", "1G"});
    KillRun run = kill_json(host, {"--pid", std::to_string(w.pid()), "--signal", "SIGINT"});
    ASSERT_EQ(run.result.exit_code, 0) << run.result.out;
    EXPECT_EQ((*target(run.doc, w.pid()))["signals_sent"], nlohmann::json({"SIGINT"}));
    EXPECT_FALSE(process_alive(w.pid()));
    EXPECT_EQ(host.gpukill({"kill", "--pid", "2", "--signal", "SIGNOPE"}).exit_code, 3);
}

TEST(Kill, AnotherUsersProcessWithoutPrivilegeIsExitFour) {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to run gpukill as another user";
    SimulatedHost host;
    Workload w = host.run({"--gpu", "0", "--mem", "1G"});
    constexpr uid_t nobody = 65534;
    // A state directory of this test's own that nobody may write: a shared /tmp would
    // mix this run's audit log and history with any other suite running meanwhile.
    char state_template[] = "/tmp/gpukill-nobody-XXXXXX";
    ASSERT_NE(mkdtemp(state_template), nullptr);
    const std::string state_dir = state_template;
    ASSERT_EQ(chmod(state_dir.c_str(), 0777), 0);
    CommandResult r =
        run_command({GPUKILL_BIN, "kill", "--pid", std::to_string(w.pid()), "--force"},
                    {{"GPUKILL_STATE_DIR", state_dir},
                     {"GPUKILL_CONFIG_DIR", "/nonexistent"},
                     {"GPUKILL_NVML_LIBRARY", ""}},
                    30, nobody);
    EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
    // The refusal is a diagnostic: stderr, never mixed into stdout's results.
    EXPECT_NE(r.err.find("gpukill: refused PID " + std::to_string(w.pid())), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("owned by root"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("owned by root"), std::string::npos) << r.out;
    EXPECT_TRUE(process_alive(w.pid()));
    std::filesystem::remove_all(state_dir);
}

}  // namespace
}  // namespace gpukill::testing

namespace gpukill::testing {
namespace {

// A PID typed wrong must not end an unrelated process: gpukill ends GPU holders.
TEST(Kill, ANamedProcessHoldingNoGpuIsRefusedOnStderrUnlessAnyProcess) {
    SimulatedHost host;
    RunningCommand plain({"/bin/sleep", "600"});
    const pid_t pid = plain.pid();
    CommandResult refused = host.gpukill({"kill", "--pid", std::to_string(pid)});
    EXPECT_EQ(refused.exit_code, 3) << refused.out << refused.err;
    EXPECT_TRUE(process_alive(pid));
    EXPECT_EQ(refused.out.find("refused"), std::string::npos) << refused.out;  // not stdout
    EXPECT_NE(refused.err.find("gpukill: refused PID " + std::to_string(pid) + " (sleep): PID " +
                               std::to_string(pid) +
                               " (sleep) holds no GPU, and no process it started does; add "
                               "--any-process to end it anyway\n"),
              std::string::npos)
        << refused.err;

    CommandResult json = host.gpukill({"kill", "--pid", std::to_string(pid), "--json"});
    EXPECT_EQ(json.exit_code, 3);
    const auto doc = nlohmann::json::parse(json.out);  // still one document, refusal inside
    EXPECT_EQ(doc["targets"][0]["refusal"], "holds_no_gpu");

    CommandResult ended = host.gpukill({"kill", "--pid", std::to_string(pid), "--any-process"});
    EXPECT_EQ(ended.exit_code, 0) << ended.out << ended.err;
    EXPECT_EQ(plain.wait(), 128 + SIGTERM);
}

}  // namespace
}  // namespace gpukill::testing

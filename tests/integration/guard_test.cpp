// `gpukill guard` against real gpusim workloads: policies checked with their line and
// column, tested against the live host and saved snapshots without signalling anyone,
// and (guard run) enforced.
#include <gtest/gtest.h>

#include <csignal>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <thread>

#include "slurm_controller.hpp"
#include "support.hpp"
#include "test_cgroup.hpp"

namespace gpukill::testing {
namespace {

// A policy file and private state and config directories next to the simulated host.
struct GuardFiles {
    explicit GuardFiles(const SimulatedHost& host)
        : dir(std::filesystem::path(host.root()).parent_path().string()) {
        std::filesystem::create_directories(dir + "/config");
    }
    std::string write(const std::string& name, const std::string& text) const {
        const std::string path = dir + "/" + name;
        std::ofstream(path) << text;
        return path;
    }
    std::map<std::string, std::string> env() const {
        return {{"GPUKILL_STATE_DIR", dir + "/state"}, {"GPUKILL_CONFIG_DIR", dir + "/config"}};
    }
    std::string dir;
};

nlohmann::json parse_json(const CommandResult& result) {
    return result.out.empty() ? nlohmann::json() : nlohmann::json::parse(result.out);
}

const nlohmann::json* decision(const nlohmann::json& doc, pid_t pid, const std::string& rule) {
    for (const auto& d : doc["decisions"]) {
        if (d["pid"] == pid && d["rule"] == rule) return &d;
    }
    return nullptr;
}

TEST(GuardCheck, ABadPolicyIsRefusedWithItsLineAndColumn) {
    SimulatedHost host;
    GuardFiles files(host);
    const std::string bad =
        files.write("bad.yaml",
                    "mode: enforce\nwindows:\n  - name: late\n    hours: 09:00-25:00\n"
                    "    memory_limit: 8G\n");
    CommandResult r = host.gpukill({"guard", "check", bad}, files.env());
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_EQ(r.err, "gpukill: " + bad +
                         ":4:18: windows.late.hours: hour 25 is not an hour of the day (00..23, "
                         "or 24:00 as an end)\n");
    EXPECT_EQ(r.out, "");

    const std::string good =
        files.write("good.yaml", "mode: enforce\nusers:\n  a: {max_processes: 1}\n");
    CommandResult ok = host.gpukill({"guard", "check", good}, files.env());
    EXPECT_EQ(ok.exit_code, 0) << ok.err;
    EXPECT_NE(ok.out.find("valid (mode enforce; 1 user"), std::string::npos) << ok.out;

    // A bad policy is never applied: guard test refuses it the same way.
    CommandResult test = host.gpukill({"guard", "test", "--policy", bad}, files.env());
    EXPECT_EQ(test.exit_code, 3);
    EXPECT_NE(test.err.find(":4:18:"), std::string::npos);
}

TEST(GuardTest, ALiveUserOverTheLimitIsReportedAndNothingIsSignalled) {
    SimulatedHost host;
    GuardFiles files(host);
    const std::string user = current_user_name();
    Workload small = host.run({"--gpu", "0", "--mem", "1G", "--name", "small"});
    Workload big = host.run({"--gpu", "1", "--mem", "6G", "--name", "big"});
    const std::string policy = files.write(
        "guard.yaml", "mode: enforce\nusers:\n  " + user +
                          ":\n    memory_limit: 4G\n    action: terminate\n    grace_period: 0s\n");
    CommandResult r = host.gpukill({"guard", "test", "--policy", policy, "--json"}, files.env());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    nlohmann::json doc = parse_json(r);
    EXPECT_EQ(doc["snapshot"], "live");
    EXPECT_EQ(doc["signalled"], false);
    // 7 GiB against 4 GiB: the newest holder of memory (big) covers the excess.
    const nlohmann::json* d = decision(doc, big.pid(), "users." + user + ".memory_limit");
    ASSERT_NE(d, nullptr) << r.out;
    EXPECT_EQ((*d)["verdict"], "terminate");
    EXPECT_EQ((*d)["start_time_ticks"], big.start_time_ticks());
    EXPECT_EQ(decision(doc, small.pid(), "users." + user + ".memory_limit"), nullptr);
    EXPECT_TRUE(process_alive(big.pid()));
    EXPECT_TRUE(process_alive(small.pid()));

    // The compatible form gives the same text report.
    CommandResult compat =
        host.gpukill({"--guard", "--guard-test-policies", "--policy", policy}, files.env());
    ASSERT_EQ(compat.exit_code, 0) << compat.err;
    EXPECT_NE(compat.out.find("PID " + std::to_string(big.pid()) + " big"), std::string::npos)
        << compat.out;
    EXPECT_NE(compat.out.find("-> terminate (SIGTERM, SIGKILL after 10s) now"), std::string::npos);
    EXPECT_TRUE(process_alive(big.pid()));
}

TEST(GuardTest, ARogueRuleUsesTheRogueDetectionScore) {
    SimulatedHost host;
    GuardFiles files(host);
    Workload miner = host.run({"--gpu", "0", "--mem", "1G", "--name", "xmrig"});
    Workload trainer = host.run({"--gpu", "0", "--mem", "1G", "--name", "trainer"});
    const std::string policy = files.write("guard.yaml",
                                           "rules:\n  - {name: miners, kind: rogue, score_above: "
                                           "50, action: kill, grace_period: 0s}\n");
    CommandResult r = host.gpukill({"guard", "test", "--policy", policy, "--json"}, files.env());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    nlohmann::json doc = parse_json(r);
    const nlohmann::json* d = decision(doc, miner.pid(), "rules.miners");
    ASSERT_NE(d, nullptr) << r.out;
    EXPECT_EQ((*d)["verdict"], "kill");
    EXPECT_NE((*d)["why"].get<std::string>().find("rogue-detection score"), std::string::npos);
    EXPECT_EQ(decision(doc, trainer.pid(), "rules.miners"), nullptr);
    EXPECT_TRUE(process_alive(miner.pid()));
}

TEST(GuardTest, ASavedSnapshotIsJudgedAsItWas) {
    SimulatedHost host;
    GuardFiles files(host);
    std::string snapshot_path;
    pid_t intruder_pid = 0;
    pid_t server_pid = 0;
    {
        Workload server = host.run({"--gpu", "1", "--mem", "2G", "--name", "tritonserver"});
        Workload intruder = host.run({"--gpu", "1", "--mem", "1G", "--name", "xmrig"});
        server_pid = server.pid();
        intruder_pid = intruder.pid();
        snapshot_path = files.write("snapshot.json", host.list_json().dump());
    }  // both workloads end here: only the saved snapshot knows them
    const std::string policy =
        files.write("guard.yaml",
                    "gpus:\n  1:\n    allowed_executables: [tritonserver]\n    action: kill\n"
                    "    grace_period: 0s\n");
    CommandResult r = host.gpukill(
        {"guard", "test", "--policy", policy, "--snapshot", snapshot_path, "--json"}, files.env());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    nlohmann::json doc = parse_json(r);
    EXPECT_EQ(doc["snapshot"], snapshot_path);
    ASSERT_EQ(doc["decisions"].size(), 1u) << r.out;
    const nlohmann::json& d = doc["decisions"][0];
    EXPECT_EQ(d["pid"], intruder_pid);
    EXPECT_EQ(d["rule"], "gpus.1.allowed_executables");
    EXPECT_EQ(d["verdict"], "kill");
    EXPECT_EQ(decision(doc, server_pid, "gpus.1.allowed_executables"), nullptr);

    const std::string not_snapshot = files.write("other.json", R"({"schema_version": 2})");
    CommandResult bad = host.gpukill(
        {"guard", "test", "--policy", policy, "--snapshot", not_snapshot}, files.env());
    EXPECT_EQ(bad.exit_code, 3);
    EXPECT_NE(bad.err.find("schema version 1"), std::string::npos) << bad.err;
}

// The audit log's records of one event kind.
std::vector<nlohmann::json> audit_records(const GuardFiles& files, const std::string& event) {
    std::vector<nlohmann::json> records;
    std::ifstream in(files.dir + "/state/audit.jsonl");
    for (std::string line; std::getline(in, line);) {
        auto record = nlohmann::json::parse(line, nullptr, false);
        if (!record.is_discarded() && record["event"] == event) records.push_back(record);
    }
    return records;
}

std::string over_limit_policy(const std::string& mode, const std::string& grace,
                              const std::string& extra = "") {
    return "mode: " + mode + "\nusers:\n  " + current_user_name() +
           ":\n    memory_limit: 4G\n    action: terminate\n    grace_period: " + grace + "\n" +
           extra;
}

TEST(GuardRun, DryRunLogsWhatItWouldDoAndLeavesTheWorkloadAlive) {
    SimulatedHost host;
    GuardFiles files(host);
    Workload w = host.run({"--gpu", "0", "--mem", "6G", "--name", "hog"});
    const std::string policy = files.write("guard.yaml", over_limit_policy("dry-run", "0s"));
    CommandResult r = host.gpukill({"guard", "run", "--once", "--policy", policy}, files.env());
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("dry-run: would terminate PID " + std::to_string(w.pid()) + " hog"),
              std::string::npos)
        << r.out;
    EXPECT_TRUE(process_alive(w.pid()));
    auto actions = audit_records(files, "guard_action");
    ASSERT_EQ(actions.size(), 1u);
    EXPECT_EQ(actions[0]["mode"], "dry-run");
    EXPECT_EQ(actions[0]["process"]["pid"], w.pid());
    EXPECT_EQ(actions[0]["action"], "terminate");
    EXPECT_TRUE(actions[0]["outcome"].is_null());
    EXPECT_TRUE(audit_records(files, "signalled").empty());
}

TEST(GuardRun, EnforceWarnsThenTerminatesAfterTheGracePeriodAcrossRestarts) {
    SimulatedHost host;
    GuardFiles files(host);
    Workload w = host.run({"--gpu", "0", "--mem", "6G", "--name", "hog"});
    const std::string policy = files.write("guard.yaml", over_limit_policy("enforce", "2s"));
    CommandResult first = host.gpukill({"guard", "run", "--once", "--policy", policy}, files.env());
    ASSERT_EQ(first.exit_code, 0) << first.err << first.out;
    EXPECT_NE(first.out.find("warn PID " + std::to_string(w.pid())), std::string::npos)
        << first.out;
    EXPECT_TRUE(process_alive(w.pid()));
    auto warnings = audit_records(files, "guard_warning");
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_EQ(warnings[0]["rule"], "users." + current_user_name() + ".memory_limit");
    EXPECT_EQ(warnings[0]["mode"], "enforce");

    // Within the grace period a second run (a restart) remembers the warning and waits.
    CommandResult waiting =
        host.gpukill({"guard", "run", "--once", "--policy", policy}, files.env());
    ASSERT_EQ(waiting.exit_code, 0) << waiting.err;
    EXPECT_TRUE(process_alive(w.pid()));
    EXPECT_EQ(audit_records(files, "guard_warning").size(), 1u);

    // The grace period is the policy's 2 s: once it has passed, the next run acts.
    std::this_thread::sleep_for(std::chrono::milliseconds(2100));
    CommandResult acting =
        host.gpukill({"guard", "run", "--once", "--policy", policy}, files.env());
    ASSERT_EQ(acting.exit_code, 0) << acting.err << acting.out;
    EXPECT_FALSE(process_alive(w.pid())) << acting.out;
    auto actions = audit_records(files, "guard_action");
    ASSERT_EQ(actions.size(), 1u) << acting.out;
    EXPECT_EQ(actions[0]["outcome"], "terminated");
    EXPECT_EQ(actions[0]["process"]["start_time_ticks"], w.start_time_ticks());
    // The reclaim engine's own records follow with the same run id.
    auto results = audit_records(files, "result");
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0]["run_id"], actions[0]["run_id"]);
    EXPECT_EQ(host.list_json()["gpus"][0]["memory_used_bytes"], 0);
}

TEST(GuardRun, AProtectedProcessBreakingEveryRuleSurvivesEnforcement) {
    SimulatedHost host;
    GuardFiles files(host);
    Workload keep = host.run({"--gpu", "1", "--mem", "6G", "--name", "keeper", "--util", "100"});
    Workload other = host.run({"--gpu", "0", "--mem", "1G", "--name", "other"});
    const std::string policy =
        files.write("guard.yaml",
                    "mode: enforce\naction: kill\ngrace_period: 0s\n"
                    "gpus:\n  0: {user_memory_limit: 512M}\n"
                    "  1: {allowed_users: [nobody-at-all], allowed_executables: [nothing], "
                    "exclusive: true, reserved_memory: 80G, user_memory_limit: 1M}\n"
                    "protected:\n  pids: [" +
                        std::to_string(keep.pid()) + "]\n");
    CommandResult r = host.gpukill({"guard", "run", "--once", "--policy", policy}, files.env());
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    EXPECT_TRUE(process_alive(keep.pid())) << r.out;
    EXPECT_FALSE(process_alive(other.pid())) << r.out;
    for (const auto& action : audit_records(files, "guard_action")) {
        EXPECT_NE(action["process"]["pid"], keep.pid());
    }
    // guard test shows what the protected process would have broken.
    CommandResult test = host.gpukill({"guard", "test", "--policy", policy, "--json"}, files.env());
    nlohmann::json doc = parse_json(test);
    const nlohmann::json* d = decision(doc, keep.pid(), "gpus.1.allowed_users");
    ASSERT_NE(d, nullptr) << test.out;
    EXPECT_EQ((*d)["verdict"], "protected");
}

// The workers enforcement takes along with a target (reason holds_same_gpu) are checked
// against the policy's protected section like the target itself.
TEST(GuardRun, AWorkerThePolicyProtectsSurvivesItsParentsTermination) {
    SimulatedHost host;
    GuardFiles files(host);
    Workload job = host.run({"--gpu", "1", "--mem", "4G", "--workers", "2", "--name", "trainer"});
    ASSERT_EQ(job.workers().size(), 2u);
    const pid_t kept = job.workers()[1];
    const std::string policy =
        files.write("guard.yaml",
                    "mode: enforce\ngpus:\n  1: {allowed_users: [nobody-at-all], action: "
                    "terminate, grace_period: 0s}\nprotected:\n  pids: [" +
                        std::to_string(kept) + "]\n");
    CommandResult test = host.gpukill({"guard", "test", "--policy", policy, "--json"}, files.env());
    ASSERT_EQ(test.exit_code, 0) << test.err;
    const nlohmann::json tested = parse_json(test);
    const nlohmann::json* shown = decision(tested, kept, "gpus.1.allowed_users");
    ASSERT_NE(shown, nullptr) << test.out;
    EXPECT_EQ((*shown)["verdict"], "protected");

    CommandResult r = host.gpukill({"guard", "run", "--once", "--policy", policy}, files.env());
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    EXPECT_FALSE(process_alive(job.pid())) << r.out;
    EXPECT_FALSE(process_alive(job.workers()[0])) << r.out;
    EXPECT_TRUE(process_alive(kept)) << r.out;
    bool refused = false;
    for (const auto& record : audit_records(files, "refused")) {
        if (record["pid"] == kept) refused = record["kind"] == "protected_process";
    }
    for (const auto& record : audit_records(files, "signalled")) {
        EXPECT_NE(record["target"]["pid"], kept) << record.dump();
    }
    EXPECT_TRUE(refused) << r.out;
}

// A pattern the engine cannot honour exactly is refused where policies are checked.
TEST(GuardCheck, AnOverflowingRepeatCountIsRefused) {
    SimulatedHost host;
    GuardFiles files(host);
    const std::string policy =
        files.write("guard.yaml",
                    "mode: enforce\nrules:\n  - {name: o, kind: orphaned, pattern: "
                    "'x{4294967296}', action: kill}\n");
    CommandResult check = host.gpukill({"guard", "check", policy}, files.env());
    EXPECT_EQ(check.exit_code, 3) << check.out << check.err;
    EXPECT_NE(check.err.find("repeat count 4294967296"), std::string::npos) << check.err;
    EXPECT_NE(check.err.find(policy + ":3:"), std::string::npos) << check.err;
}

TEST(GuardEdit, CompatibleFlagsEditThePolicyInPlaceAndKeepItsComments) {
    SimulatedHost host;
    GuardFiles files(host);
    const std::string policy = files.dir + "/config/guard.yaml";
    std::ofstream(policy) << "# our rules\nmode: off  # not yet\nusers:\n  # interns\n  alice: "
                             "{max_processes: 1}\n";
    CommandResult enforce = host.gpukill({"--guard-enforce"}, files.env());
    ASSERT_EQ(enforce.exit_code, 0) << enforce.err;
    CommandResult add = host.gpukill(
        {"--guard-add-user", "bob", "--guard-memory-limit", "8", "--guard-action", "terminate"},
        files.env());
    ASSERT_EQ(add.exit_code, 0) << add.err;
    EXPECT_EQ(add.out, policy + ": users.bob set to {memory_limit: 8G, action: terminate}\n");
    std::ifstream in(policy);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text,
              "# our rules\nmode: enforce  # not yet\nusers:\n  bob: {memory_limit: 8G, action: "
              "terminate}\n  # interns\n  alice: {max_processes: 1}\n");
    CommandResult check = host.gpukill({"--guard"}, files.env());
    EXPECT_EQ(check.exit_code, 0) << check.err;
    EXPECT_NE(check.out.find("valid (mode enforce; 2 users"), std::string::npos) << check.out;
    auto changes = audit_records(files, "guard_policy_changed");
    ASSERT_EQ(changes.size(), 2u);
    EXPECT_EQ(changes[0]["change"], "mode enforce");

    // A change that would break the policy is refused and nothing is written.
    CommandResult bad =
        host.gpukill({"--guard-add-gpu", "0", "--guard-allowed-users", "carol"}, files.env());
    EXPECT_EQ(bad.exit_code, 0) << bad.err;  // fine: no user allows GPU 0 explicitly
    CommandResult contradiction =
        host.gpukill({"--guard-add-user", "dave", "--guard-memory-limit", "-1"}, files.env());
    EXPECT_EQ(contradiction.exit_code, 3);
    CommandResult exported = host.gpukill({"--guard-export-config"}, files.env());
    EXPECT_EQ(exported.out.find("dave"), std::string::npos);
}

TEST(GuardRun, AStuckJobIsCaughtOnlyAfterItsWindowAndSigintEndsTheLoop) {
    SimulatedHost host;
    GuardFiles files(host);
    Workload stuck = host.run({"--gpu", "0", "--mem", "2G", "--util", "99", "--name", "spinner"});
    const std::string policy =
        files.write("guard.yaml",
                    "mode: enforce\ncheck_interval: 1s\nrules:\n  - {name: stuck, kind: stuck, "
                    "utilization_above: 95, for: 2s, action: terminate, grace_period: 0s}\n");
    std::map<std::string, std::string> env = host.env();
    for (const auto& [key, value] : files.env()) env[key] = value;
    RunningCommand loop({GPUKILL_BIN, "guard", "run", "--policy", policy}, env);
    auto started = loop.read_line();
    ASSERT_TRUE(started);
    EXPECT_NE(started->find("guard run: policy " + policy + " (mode enforce)"), std::string::npos);
    const auto t0 = std::chrono::steady_clock::now();
    std::optional<std::string> acted;
    while (auto line = loop.read_line(10)) {
        if (line->find("terminate PID " + std::to_string(stuck.pid())) != std::string::npos) {
            acted = line;
            break;
        }
    }
    ASSERT_TRUE(acted) << "no action line";
    // Busy from the first check, but stuck only once it has been for the rule's 2 s.
    EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(1500));
    EXPECT_NE(acted->find("(rules.stuck): terminated"), std::string::npos) << *acted;
    EXPECT_FALSE(process_alive(stuck.pid()));
    loop.send_signal(SIGINT);
    EXPECT_EQ(loop.wait(), 0);
}

TEST(GuardRun, SighupReadsThePolicyAgainAndABadOneKeepsTheOldInForce) {
    SimulatedHost host;
    GuardFiles files(host);
    // A day between checks: only SIGHUP can make the loop read the file again.
    const std::string policy = files.write("guard.yaml", "mode: dry-run\ncheck_interval: 1d\n");
    std::map<std::string, std::string> env = host.env();
    for (const auto& [key, value] : files.env()) env[key] = value;
    RunningCommand loop({GPUKILL_BIN, "guard", "run", "--policy", policy}, env);
    auto started = loop.read_line();
    ASSERT_TRUE(started);
    EXPECT_NE(started->find("(mode dry-run)"), std::string::npos) << *started;

    files.write("guard.yaml", "mode: enforce\ncheck_interval: 1d\n");
    loop.send_signal(SIGHUP);
    std::optional<std::string> reloaded;
    while (auto line = loop.read_line(10)) {
        if (line->find("reloaded") != std::string::npos) {
            reloaded = line;
            break;
        }
    }
    ASSERT_TRUE(reloaded) << "no reload line after SIGHUP";
    EXPECT_NE(reloaded->find("policy " + policy + " reloaded (mode enforce)"), std::string::npos)
        << *reloaded;

    files.write("guard.yaml", "mode: enforce\nusers: [\n");
    loop.send_signal(SIGHUP);
    std::optional<std::string> kept;
    while (auto line = loop.read_line(10)) {
        if (line->find("not reloaded") != std::string::npos) {
            kept = line;
            break;
        }
    }
    ASSERT_TRUE(kept) << "a bad policy was not reported";
    EXPECT_NE(kept->find("the previous one stays in force"), std::string::npos) << *kept;
    loop.send_signal(SIGINT);
    EXPECT_EQ(loop.wait(), 0);
}

TEST(GuardTest, ATimeWindowChangesTheLimitByTheHostsClock) {
    SimulatedHost host;
    GuardFiles files(host);
    Workload w = host.run({"--gpu", "0", "--mem", "2G", "--name", "job"});
    // The host's time zone is UTC for this run; windows are judged in it.
    std::map<std::string, std::string> env = files.env();
    env["TZ"] = "UTC";
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    static const char* const kDays[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};
    auto judge = [&](const std::string& day) {
        const std::string policy = files.write(
            "guard.yaml", "defaults: {memory_limit: 8G}\nwindows:\n  - {name: busy, days: [" + day +
                              "], memory_limit: 1G}\n");
        CommandResult r = host.gpukill({"guard", "test", "--policy", policy, "--json"}, env);
        EXPECT_EQ(r.exit_code, 0) << r.err;
        return parse_json(r);
    };
    // Today the window's 1G applies; on another day the defaults' 8G.
    nlohmann::json today = judge(kDays[utc.tm_wday]);
    EXPECT_NE(decision(today, w.pid(), "windows.busy.memory_limit"), nullptr) << today.dump();
    nlohmann::json other = judge(kDays[(utc.tm_wday + 3) % 7]);
    EXPECT_TRUE(other["decisions"].empty()) << other.dump();
}

// Runs `gpusim run ARGS` as `uid` with `env` set: setpriv, then env, exec it, so the
// workload keeps the PID the test started.
Workload run_as(SimulatedHost& host, uid_t uid, const std::vector<std::string>& env,
                const std::vector<std::string>& args) {
    std::vector<std::string> launcher = {"/usr/bin/setpriv", "--reuid=" + std::to_string(uid),
                                         "--regid=" + std::to_string(uid), "--clear-groups",
                                         "/usr/bin/env"};
    launcher.insert(launcher.end(), env.begin(), env.end());
    return host.run_via(launcher, args);
}

// A workload of Slurm job `job` for `uid`: in the cgroup slurmd's v1 layout gives a job
// step (/slurm/uid_U/job_J/step_0), which is where gpukill reads the job id from.
struct JobWorkload {
    JobWorkload(SimulatedHost& host, uid_t uid, const std::string& job,
                const std::vector<std::string>& args)
        : cgroup("slurm/uid_" + std::to_string(uid) + "/job_" + job + "/step_0"),
          workload(run_as(host, uid, {"SLURM_JOB_ACCOUNT=vision"}, args)) {
        if (!cgroup.usable() || !cgroup.move(workload.pid())) {
            throw std::runtime_error("cannot place the workload in job " + job + "'s cgroup");
        }
    }
    TestCgroup cgroup;
    Workload workload;
};

// Slurm's own record names a job's account: the project that names the account counts
// the job's processes together, and guard test says why it did.
TEST(GuardSlurm, AProjectCountsTheProcessesOfItsAccountsJobsAndSaysWhy) {
    SlurmController slurm;
    if (slurm.unavailable()) GTEST_SKIP() << *slurm.unavailable();
    SimulatedHost host;
    open_host_to_all_users(host);
    GuardFiles files(host);
    const std::string first_job = slurm.submit_held("vision");
    const std::string second_job = slurm.submit_held("vision");
    const std::string other_job = slurm.submit_held("physics");
    JobWorkload first(host, 1000, first_job, {"--gpu", "0", "--mem", "3G", "--name", "train-a"});
    JobWorkload second(host, 1000, second_job, {"--gpu", "1", "--mem", "3G", "--name", "train-b"});
    // Another account's job, though its environment names vision.
    JobWorkload outsider(host, 1000, other_job, {"--gpu", "1", "--mem", "6G", "--name", "other"});
    const std::string policy =
        files.write("guard.yaml",
                    "mode: enforce\nprojects:\n  vision:\n    slurm_accounts: [vision]\n"
                    "    memory_limit: 5G\n");
    std::map<std::string, std::string> env = files.env();
    env.merge(slurm.env());
    CommandResult r = host.gpukill({"guard", "test", "--policy", policy, "--json"}, env);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    nlohmann::json doc = parse_json(r);
    const nlohmann::json* over =
        decision(doc, second.workload.pid(), "projects.vision.memory_limit");
    ASSERT_NE(over, nullptr) << r.out;
    EXPECT_NE((*over)["why"].get<std::string>().find("project vision's 2 processes use 6.0 GiB"),
              std::string::npos)
        << (*over)["why"];
    EXPECT_NE(
        (*over)["why"].get<std::string>().find("(counted in project vision: Slurm account vision)"),
        std::string::npos);
    EXPECT_EQ(decision(doc, first.workload.pid(), "projects.vision.memory_limit"), nullptr);
    EXPECT_EQ(decision(doc, outsider.workload.pid(), "projects.vision.memory_limit"), nullptr);
}

// The adversarial run's case: a process that names an account in its own environment is
// not that account's, so it cannot push a real member's job over a project limit. Only
// a second real job of the account does, and then the newer of the two is terminated.
TEST(GuardSlurm, AnAccountClaimedInTheEnvironmentIsNoMembershipAndTerminatesNoMember) {
    SlurmController slurm;
    if (slurm.unavailable()) GTEST_SKIP() << *slurm.unavailable();
    SimulatedHost host;
    open_host_to_all_users(host);
    GuardFiles files(host);
    const std::string policy =
        files.write("guard.yaml",
                    "mode: enforce\nprojects:\n  vision:\n    slurm_accounts: [vision]\n"
                    "    max_processes: 1\n    action: terminate\n    grace_period: 0s\n");
    std::map<std::string, std::string> env = files.env();
    env.merge(slurm.env());

    // nobody, in no job, claims the account first; then the account's real job starts.
    Workload squatter = run_as(host, 65534, {"SLURM_JOB_ACCOUNT=vision"},
                               {"--gpu", "0", "--mem", "2G", "--name", "squatter"});
    JobWorkload member(host, 1000, slurm.submit_held("vision"),
                       {"--gpu", "0", "--mem", "4G", "--name", "vision-train"});
    CommandResult quiet = host.gpukill({"guard", "run", "--once", "--policy", policy}, env);
    ASSERT_EQ(quiet.exit_code, 0) << quiet.err << quiet.out;
    EXPECT_EQ(quiet.out.find("terminate"), std::string::npos) << quiet.out;
    EXPECT_TRUE(process_alive(member.workload.pid()));
    EXPECT_TRUE(process_alive(squatter.pid()));

    // A second job of the account: two members over a limit of one, the newer goes.
    JobWorkload newer(host, 1000, slurm.submit_held("vision"),
                      {"--gpu", "1", "--mem", "1G", "--name", "vision-eval"});
    CommandResult acted = host.gpukill({"guard", "run", "--once", "--policy", policy}, env);
    ASSERT_EQ(acted.exit_code, 0) << acted.err << acted.out;
    EXPECT_NE(acted.out.find("terminate PID " + std::to_string(newer.workload.pid())),
              std::string::npos)
        << acted.out;
    EXPECT_FALSE(process_alive(newer.workload.pid()));
    EXPECT_TRUE(process_alive(member.workload.pid()));
    EXPECT_TRUE(process_alive(squatter.pid()));
}

}  // namespace
}  // namespace gpukill::testing

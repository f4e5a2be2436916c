// `gpukill reset` against real gpusim workloads and gpusim's nvidia-smi: who holds the GPU,
// what is refused, who is alive afterwards, what memory is free, what the JSON and the
// audit log say. No real GPU is ever reset: gpusim's nvidia-smi only clears its records.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "support.hpp"

namespace gpukill::testing {
namespace {

constexpr std::uint64_t GiB = 1ULL << 30;

struct ResetRun {
    CommandResult result;
    nlohmann::json doc;
};

ResetRun reset_json(const SimulatedHost& host, std::vector<std::string> args,
                    const std::map<std::string, std::string>& env = {}) {
    args.insert(args.begin(), "reset");
    args.push_back("--json");
    ResetRun run{host.gpukill(args, env), {}};
    if (!run.result.out.empty()) run.doc = nlohmann::json::parse(run.result.out);
    return run;
}

std::uint64_t used(const SimulatedHost& host, unsigned gpu) {
    return host.list_json()["gpus"][gpu]["memory_used_bytes"].get<std::uint64_t>();
}

std::vector<nlohmann::json> audit_records(const std::string& state_dir) {
    std::ifstream log(state_dir + "/audit.jsonl");
    std::vector<nlohmann::json> records;
    for (std::string line; std::getline(log, line);) records.push_back(nlohmann::json::parse(line));
    return records;
}

std::vector<std::string> events(const std::vector<nlohmann::json>& records) {
    std::vector<std::string> names;
    for (const auto& record : records) names.push_back(record["event"]);
    return names;
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

std::string state_dir(const SimulatedHost& host) {
    return std::filesystem::path(host.root()).parent_path().string() + "/state";
}

TEST(Reset, HoldersWithoutForceAreRefusedAndLeftAlone) {
    SimulatedHost host;
    Workload job = host.run({"--gpu", "0", "--mem", "2G", "--workers", "1"});
    host.leak(0, "1G");
    ResetRun run = reset_json(host, {"--gpu", "0"});
    EXPECT_EQ(run.result.exit_code, 6) << run.result.out << run.result.err;
    EXPECT_EQ(run.doc["decision"], "held");
    EXPECT_EQ(run.doc["block"], "holders");
    EXPECT_EQ(run.doc["executed"], false);
    std::vector<pid_t> holders;
    for (const auto& holder : run.doc["holders"]) holders.push_back(holder["pid"]);
    EXPECT_EQ(holders, (std::vector<pid_t>{job.pid(), job.workers().at(0)}));
    EXPECT_EQ(run.doc["holders"][0]["memory_bytes"], 2 * GiB);
    EXPECT_EQ(run.doc["holders"][0]["driver_listed"], true);
    EXPECT_EQ(run.doc["holders"][1]["driver_listed"], false);
    EXPECT_TRUE(process_alive(job.pid()));
    EXPECT_TRUE(process_alive(job.workers().at(0)));
    EXPECT_EQ(used(host, 0), 3 * GiB);

    CommandResult text = host.gpukill({"reset", "--gpu", "0"});
    EXPECT_EQ(text.exit_code, 6);
    EXPECT_NE(text.out.find(std::to_string(job.pid())), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("--force"), std::string::npos) << text.out;
}

TEST(Reset, ForceReclaimsTheHoldersThenResetsAndTheLeakIsGone) {
    SimulatedHost host;
    const std::string state = state_dir(host);
    Workload job = host.run({"--gpu", "0", "--mem", "3G", "--workers", "2"});
    Workload stubborn = host.run({"--gpu", "0", "--mem", "1G", "--ignore-term"});
    Workload bystander = host.run({"--gpu", "1", "--mem", "1G"});
    host.leak(0, "2G");
    ASSERT_EQ(used(host, 0), 6 * GiB);

    ResetRun run = reset_json(host, {"--gpu", "0", "--force", "--timeout-secs", "0.5"},
                              {{"GPUKILL_STATE_DIR", state}});
    ASSERT_EQ(run.result.exit_code, 0) << run.result.out << run.result.err;
    EXPECT_EQ(run.doc["decision"], "reclaim_then_reset");
    EXPECT_EQ(run.doc["executed"], true);
    for (pid_t pid : {job.pid(), job.workers().at(0), job.workers().at(1), stubborn.pid()}) {
        EXPECT_FALSE(process_alive(pid)) << pid;
    }
    EXPECT_TRUE(process_alive(bystander.pid()));
    bool stubborn_killed = false;
    for (const auto& target : run.doc["reclaim"]["targets"]) {
        if (target["pid"] == stubborn.pid()) stubborn_killed = target["outcome"] == "killed";
    }
    EXPECT_TRUE(stubborn_killed) << run.doc["reclaim"].dump();

    const auto& gpu = run.doc["gpus"][0];
    EXPECT_EQ(gpu["index"], 0);
    EXPECT_EQ(gpu["reset"]["succeeded"], true);
    EXPECT_EQ(gpu["reset"]["exit_status"], 0);
    EXPECT_EQ(gpu["reset"]["command"][1], "-r");
    EXPECT_EQ(gpu["reset"]["command"][3], "00000000:18:00.0");
    EXPECT_NE(gpu["reset"]["output"].get<std::string>().find("successfully reset"),
              std::string::npos);
    EXPECT_EQ(gpu["memory_used_before_bytes"], 6 * GiB);
    EXPECT_EQ(gpu["memory_used_after_bytes"], 0);
    EXPECT_EQ(gpu["memory_freed_bytes"], 6 * GiB);
    EXPECT_EQ(gpu["memory_free"], true);
    EXPECT_EQ(gpu["verified"], true);
    EXPECT_EQ(used(host, 0), 0u);
    EXPECT_EQ(used(host, 1), GiB);

    auto records = audit_records(state);
    auto names = events(records);
    for (const char* event :
         {"reset_planned", "planned", "signal_intent", "signalled", "result", "reset_result"}) {
        EXPECT_TRUE(contains(names, event)) << event;
    }
    EXPECT_FALSE(contains(names, "reset_refused"));
    std::set<std::string> run_ids;
    for (const auto& record : records) run_ids.insert(record["run_id"]);
    EXPECT_EQ(run_ids.size(), 1u);
    EXPECT_EQ(records.back()["event"], "reset_result");
    EXPECT_EQ(records.back()["verified"], true);
    EXPECT_EQ(records.back()["reset"]["exit_status"], 0);
}

// A protected holder stops a forced reset; the text says so in the reset's words, not
// kill's ("a process named with --pid was refused", when no --pid was given: issue 33).
TEST(Reset, AProtectedHolderStopsAForcedResetInItsOwnWords) {
    SimulatedHost host;
    const std::string config = host.root() + "/../config";
    std::filesystem::create_directories(config);
    Workload server = host.run({"--gpu", "0", "--mem", "1G"});
    std::ofstream(config + "/protected.yaml") << "pids: [" << server.pid() << "]\n";
    CommandResult text =
        host.gpukill({"reset", "--gpu", "0", "--force"}, {{"GPUKILL_CONFIG_DIR", config}});
    EXPECT_EQ(text.exit_code, 6) << text.out << text.err;
    EXPECT_TRUE(process_alive(server.pid()));
    EXPECT_EQ(text.out.find("--pid"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("refused PID " + std::to_string(server.pid())), std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("Nothing was signalled: a holder of the GPU may not be signalled"),
              std::string::npos)
        << text.out;
}

TEST(Reset, DryRunChangesNothing) {
    SimulatedHost host;
    const std::string state = state_dir(host);
    Workload job = host.run({"--gpu", "0", "--mem", "1G"});
    host.leak(0, "1G");
    ResetRun run =
        reset_json(host, {"--gpu", "0", "--force", "--dry-run"}, {{"GPUKILL_STATE_DIR", state}});
    EXPECT_EQ(run.result.exit_code, 0) << run.result.out << run.result.err;
    EXPECT_EQ(run.doc["dry_run"], true);
    EXPECT_EQ(run.doc["executed"], false);
    EXPECT_EQ(run.doc["gpus"][0]["reset"], nullptr);
    ASSERT_EQ(run.doc["reclaim"]["targets"].size(), 1u);
    EXPECT_EQ(run.doc["reclaim"]["targets"][0]["outcome"], nullptr);
    EXPECT_TRUE(process_alive(job.pid()));
    EXPECT_EQ(used(host, 0), 2 * GiB);
    auto names = events(audit_records(state));
    EXPECT_EQ(names.front(), "reset_planned");
    EXPECT_FALSE(contains(names, "signalled"));
    EXPECT_FALSE(contains(names, "reset_result"));

    CommandResult held = host.gpukill({"reset", "--gpu", "0", "--dry-run"});
    EXPECT_EQ(held.exit_code, 6) << held.out;  // what the real run would answer
}

TEST(Reset, NotRootIsExitFourAndNothingHappens) {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to run gpukill as another user";
    SimulatedHost host;
    // Let the other user read the simulated driver's state, as a real driver lets anyone.
    const std::filesystem::path base = std::filesystem::path(host.root()).parent_path();
    ASSERT_EQ(chmod(base.c_str(), 0755), 0);
    const std::string state = (base / "nobody-state").string();
    std::filesystem::create_directory(state);
    ASSERT_EQ(chmod(state.c_str(), 0777), 0);
    Workload job = host.run({"--gpu", "0", "--mem", "1G"});
    host.leak(0, "1G");

    constexpr uid_t nobody = 65534;
    std::map<std::string, std::string> env = host.env();
    env["GPUKILL_STATE_DIR"] = state;
    env["GPUKILL_CONFIG_DIR"] = "/nonexistent";
    CommandResult r = run_command({GPUKILL_BIN, "reset", "--gpu", "0", "--force"}, env, 30, nobody);
    EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
    EXPECT_NE(r.out.find("root"), std::string::npos) << r.out;
    EXPECT_TRUE(process_alive(job.pid()));
    EXPECT_EQ(used(host, 0), 2 * GiB);
}

TEST(Reset, ALostGpuIsAttemptedAndReported) {
    SimulatedHost host("gpus:\n  - {}\n  - failures:\n      lost: true\n");
    ResetRun run = reset_json(host, {"--gpu", "1"});
    EXPECT_EQ(run.result.exit_code, 1) << run.result.out << run.result.err;
    const auto& gpu = run.doc["gpus"][0];
    EXPECT_EQ(gpu["lost"], true);
    EXPECT_NE(gpu["notes"][0].get<std::string>().find("lost"), std::string::npos);
    EXPECT_EQ(gpu["reset"]["exit_status"], 15);
    EXPECT_EQ(gpu["reset"]["failure"], "lost");
    EXPECT_NE(gpu["reset"]["message"].get<std::string>().find("fallen off the bus"),
              std::string::npos);
    EXPECT_EQ(gpu["verified"], false);
}

TEST(Reset, AllResetsEveryGpu) {
    SimulatedHost host;
    host.leak(0, "1G");
    host.leak(1, "3G");
    ResetRun run = reset_json(host, {"--all"});
    ASSERT_EQ(run.result.exit_code, 0) << run.result.out << run.result.err;
    ASSERT_EQ(run.doc["gpus"].size(), 2u);
    EXPECT_EQ(run.doc["gpus"][1]["memory_freed_bytes"], 3 * GiB);
    EXPECT_EQ(used(host, 0), 0u);
    EXPECT_EQ(used(host, 1), 0u);
}

TEST(Reset, TheCompatibleFormsWork) {
    SimulatedHost host;
    host.leak(0, "1G");
    host.leak(1, "1G");
    CommandResult positional = host.gpukill({"--reset", "0"});
    EXPECT_EQ(positional.exit_code, 0) << positional.out << positional.err;
    EXPECT_NE(positional.out.find("GPU 00000000:18:00.0 was successfully reset."),
              std::string::npos)
        << positional.out;
    EXPECT_EQ(used(host, 0), 0u);
    EXPECT_EQ(used(host, 1), GiB);
    CommandResult flag = host.gpukill({"--reset", "--gpu", "1"});
    EXPECT_EQ(flag.exit_code, 0) << flag.out << flag.err;
    EXPECT_EQ(used(host, 1), 0u);
    EXPECT_EQ(host.gpukill({"reset"}).exit_code, 3);
    EXPECT_EQ(host.gpukill({"reset", "--gpu", "9"}).exit_code, 3);
    EXPECT_EQ(host.gpukill({"reset", "--gpu", "0", "--all"}).exit_code, 3);
}

TEST(Reset, ABoardWithoutResetSupportIsExitFive) {
    SimulatedHost host("gpus:\n  - failures:\n      reset: not_supported\n");
    host.leak(0, "1G");
    ResetRun run = reset_json(host, {"--gpu", "0"});
    EXPECT_EQ(run.result.exit_code, 5) << run.result.out << run.result.err;
    EXPECT_EQ(run.doc["gpus"][0]["reset"]["exit_status"], 3);
    EXPECT_EQ(run.doc["gpus"][0]["reset"]["failure"], "unsupported");
    EXPECT_NE(run.doc["gpus"][0]["reset"]["output"].get<std::string>().find("Not Supported"),
              std::string::npos);
    EXPECT_EQ(used(host, 0), GiB);
}

TEST(Reset, AnOtherErrorFromNvidiaSmiIsExitOneWithItsOutput) {
    SimulatedHost host("gpus:\n  - failures:\n      reset: unknown\n");
    CommandResult r = host.gpukill({"reset", "--gpu", "0"});
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("| The following GPUs could not be reset:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("(255)"), std::string::npos) << r.out;
}

TEST(Reset, WithoutNvidiaSmiNvidiaGpusAreUnsupported) {
    SimulatedHost host;
    CommandResult r =
        host.gpukill({"reset", "--gpu", "0"}, {{"GPUKILL_NVIDIA_SMI", "/nonexistent/nvidia-smi"}});
    EXPECT_EQ(r.exit_code, 5) << r.out << r.err;
    EXPECT_NE(r.out.find("/nonexistent/nvidia-smi"), std::string::npos) << r.out;
    CommandResult flag =
        host.gpukill({"reset", "--gpu", "0", "--nvidia-smi", host.env().at("GPUKILL_NVIDIA_SMI")},
                     {{"GPUKILL_NVIDIA_SMI", "/nonexistent/nvidia-smi"}});
    EXPECT_EQ(flag.exit_code, 0) << flag.out << flag.err;
}

constexpr const char* kVoltaPair =
    "gpus:\n"
    "  - architecture: volta\n"
    "    nvlinks: [1, 1]\n"
    "  - architecture: volta\n"
    "    nvlinks: [0, 0]\n"
    "  - architecture: volta\n";

TEST(Reset, VoltaGpusJoinedByNvlinkResetTogether) {
    SimulatedHost host(kVoltaPair);
    nlohmann::json listed = host.list_json();
    EXPECT_EQ(listed["gpus"][0]["architecture"], "volta");
    EXPECT_EQ(listed["gpus"][0]["nvlink_peer_bus_ids"], nlohmann::json({"0000:2a:00.0"}));
    EXPECT_EQ(listed["gpus"][2]["nvlink_peer_bus_ids"], nlohmann::json::array());

    host.leak(0, "1G");
    ResetRun alone = reset_json(host, {"--gpu", "0"});
    EXPECT_EQ(alone.result.exit_code, 3) << alone.result.out;
    EXPECT_EQ(alone.doc["block"], "incomplete_group");
    EXPECT_NE(alone.doc["advice"].get<std::string>().find("--gpu 0,1"), std::string::npos);
    EXPECT_EQ(used(host, 0), GiB);

    ResetRun both = reset_json(host, {"--gpu", "0,1"});
    ASSERT_EQ(both.result.exit_code, 0) << both.result.out << both.result.err;
    EXPECT_EQ(both.doc["gpus"][0]["reset"]["command"][3], "00000000:18:00.0,00000000:2A:00.0");
    EXPECT_EQ(both.doc["gpus"][1]["reset"]["gpus"], nlohmann::json({0, 1}));
    EXPECT_EQ(used(host, 0), 0u);

    ResetRun unlinked = reset_json(host, {"--gpu", "2"});
    EXPECT_EQ(unlinked.result.exit_code, 0) << unlinked.result.out;
}

TEST(Reset, SimulatedNvidiaSmiRefusesAnIncompleteNvlinkSetItself) {
    SimulatedHost host(kVoltaPair);
    CommandResult r =
        run_command({host.env().at("GPUKILL_NVIDIA_SMI"), "-r", "-i", "0"}, host.env());
    EXPECT_EQ(r.exit_code, 255) << r.out;
    EXPECT_NE(r.out.find("00000000:2A:00.0"), std::string::npos) << r.out;
}

TEST(Reset, AmpereGpusWithNvlinkResetAlone) {
    SimulatedHost host(
        "gpus:\n  - architecture: ampere\n    nvlinks: [1]\n  - architecture: ampere\n"
        "    nvlinks: [0]\n");
    host.leak(0, "1G");
    ResetRun run = reset_json(host, {"--gpu", "0"});
    EXPECT_EQ(run.result.exit_code, 0) << run.result.out;
    EXPECT_EQ(run.doc["gpus"][0]["reset"]["command"][3], "00000000:18:00.0");
}

TEST(Reset, AnIntelDrmGpuIsUnsupportedWithWhatToDo) {
    SimulatedHost host("drm_gpus:\n  - vendor: intel\n");
    nlohmann::json listed = host.list_json();
    std::optional<unsigned> intel;
    for (const auto& gpu : listed["gpus"]) {
        if (gpu["vendor"] == "intel") intel = gpu["index"].get<unsigned>();
    }
    if (!intel) GTEST_SKIP() << "no Intel GPU listed from the simulated DRM tree";
    ResetRun run = reset_json(host, {"--gpu", std::to_string(*intel)});
    EXPECT_EQ(run.result.exit_code, 5) << run.result.out << run.result.err;
    EXPECT_EQ(run.doc["block"], "unsupported");
    EXPECT_NE(run.doc["advice"].get<std::string>().find("unbind"), std::string::npos);

    // --all resets the NVIDIA GPUs and says which it skipped.
    ResetRun all = reset_json(host, {"--all"});
    EXPECT_EQ(all.result.exit_code, 0) << all.result.out << all.result.err;
    ASSERT_EQ(all.doc["skipped"].size(), 1u);
    EXPECT_EQ(all.doc["skipped"][0]["index"], *intel);
}

}  // namespace
}  // namespace gpukill::testing

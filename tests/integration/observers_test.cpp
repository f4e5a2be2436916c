// Observers beside workloads, as on a GPU Operator node: nvidia-persistenced- and
// DCGM-like monitoring clients (`gpusim observe`: the control and GPU nodes, as NVML opens
// them, no context), gpukill's own agent (which keeps NVML open), and the orphaned workers
// of a dead trainer. The observers are listed apart, never counted, never targeted, and a
// reset beside the running agent goes through.
#include <dlfcn.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "agent_support.hpp"
#include "support.hpp"

namespace gpukill::testing {
namespace observers_test {
namespace {

using nlohmann::json;

const json* process_in(const json& listing, pid_t pid) {
    for (const json& process : listing["processes"]) {
        if (process["pid"] == pid) return &process;
    }
    return nullptr;
}

std::set<pid_t> problem_pids(const json& check) {
    std::set<pid_t> pids;
    for (const json& problem : check["problems"]) {
        if (problem["pid"].is_number()) pids.insert(problem["pid"].get<pid_t>());
    }
    return pids;
}

std::string scratch_dir(const SimulatedHost& host, const std::string& name) {
    const std::string dir = std::filesystem::path(host.root()).parent_path().string() + "/" + name;
    std::filesystem::create_directories(dir);
    return dir;
}

TEST(Observers, AreListedApartNeverCountedAndNeverTargeted) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to see every holder";
    SimulatedHost host;
    Workload persistenced = host.observe({"--name", "nvidia-persistenced"});
    Workload dcgm = host.observe({"--name", "nv-hostengine", "--gpu", "1"});
    Workload trainer = host.run({"--gpu", "0", "--mem", "2G", "--workers", "2"});
    trainer.kill_parent();  // its DataLoader workers hold GPU 0, orphaned

    const json listing = host.list_json();
    for (const Workload* observer : {&persistenced, &dcgm}) {
        const json* seen = process_in(listing, observer->pid());
        ASSERT_NE(seen, nullptr) << listing.dump();
        EXPECT_EQ((*seen)["role"], "observer");
    }
    for (pid_t worker : trainer.workers()) {
        const json* seen = process_in(listing, worker);
        ASSERT_NE(seen, nullptr);
        EXPECT_EQ((*seen)["role"], "workload");
        EXPECT_EQ((*seen)["orphaned"], true);
    }
    EXPECT_EQ(listing["gpus"][0]["process_count"], 2);
    EXPECT_EQ(listing["gpus"][0]["observer_count"], 1);
    EXPECT_EQ(listing["gpus"][1]["process_count"], 0);
    EXPECT_EQ(listing["gpus"][1]["observer_count"], 2);

    // The orphans are problems; the observers, orphaned or not, are not.
    CommandResult check = host.gpukill({"check", "--no-rogue", "--json"});
    EXPECT_EQ(check.exit_code, 1) << check.out << check.err;
    const std::set<pid_t> found = problem_pids(json::parse(check.out));
    EXPECT_EQ(found, std::set<pid_t>(trainer.workers().begin(), trainer.workers().end()));

    // No selector reaches them: --gpu 1 holds nothing but observers.
    CommandResult nothing = host.gpukill({"kill", "--gpu", "1", "--batch", "--force", "--json"});
    EXPECT_TRUE(json::parse(nothing.out)["targets"].empty()) << nothing.out;
    CommandResult ended =
        host.gpukill({"kill", "--gpu", "0", "--batch", "--force", "--timeout-secs", "3"});
    EXPECT_EQ(ended.exit_code, 0) << ended.out << ended.err;
    for (pid_t worker : trainer.workers()) EXPECT_FALSE(process_alive(worker));
    EXPECT_TRUE(process_alive(persistenced.pid()));
    EXPECT_TRUE(process_alive(dcgm.pid()));

    // Only observers left: an idle node.
    CommandResult idle = host.gpukill({"check", "--idle", "--no-rogue"});
    EXPECT_EQ(idle.exit_code, 0) << idle.out << idle.err;
    EXPECT_EQ(idle.out, "clean: 2 GPUs, no problem found\n");
    CommandResult table = host.gpukill({"list", "--details"});
    EXPECT_NE(table.out.find("observer ‡"), std::string::npos) << table.out;
}

TEST(Observers, AFreshNodeWithTheAgentAndAnObserverIsIdleEverywhere) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to see every holder";
    SimulatedHost host;
    Workload persistenced = host.observe({"--name", "nvidia-persistenced"});
    const std::string tokens = write_token_file(scratch_dir(host, "secrets"));
    RunningAgent agent(host, {"--token-file", tokens, "--interval", "0.2"});

    const json listing = host.list_json();
    const json* seen = process_in(listing, agent.pid());
    ASSERT_NE(seen, nullptr) << "the agent keeps NVML open: " << listing.dump();
    EXPECT_EQ((*seen)["role"], "observer");

    CommandResult idle = host.gpukill({"check", "--idle", "--no-rogue"});
    EXPECT_EQ(idle.exit_code, 0) << idle.out << idle.err;
    CommandResult check = host.gpukill({"check"});
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;

    // The agent's own view: no holder, hidden or orphaned, on any GPU.
    httplib::Client client = agent.client();
    const std::string metrics = client.Get("/metrics")->body;
    for (const char* family : {"gpukill_gpu_processes{", "gpukill_gpu_file_only_holders{",
                               "gpukill_gpu_orphaned_holders{"}) {
        std::size_t at = metrics.find(family);
        ASSERT_NE(at, std::string::npos) << family;
        for (; at != std::string::npos; at = metrics.find(family, at + 1)) {
            const std::string line = metrics.substr(at, metrics.find('\n', at) - at);
            EXPECT_TRUE(line.ends_with(" 0")) << line;
        }
    }
}

TEST(Observers, AResetBesideTheRunningAgentAsksItToLetGo) {
    if (::geteuid() != 0) GTEST_SKIP() << "resetting a GPU needs root";
    SimulatedHost host;
    const std::string tokens = write_token_file(scratch_dir(host, "secrets"));
    RunningAgent agent(host, {"--token-file", tokens, "--interval", "0.2"});
    host.leak(1, "1G");

    CommandResult reset = host.gpukill({"reset", "--gpu", "1", "--force", "--json"});
    ASSERT_EQ(reset.exit_code, 0) << reset.out << reset.err;
    const json doc = json::parse(reset.out);
    EXPECT_EQ(doc["local_agent_pid"], agent.pid());
    EXPECT_TRUE(doc["holders"].empty()) << "the agent is no holder";
    EXPECT_TRUE(agent.wait_for_line("asks the agent to let go of its driver session"));
    EXPECT_TRUE(agent.wait_for_line("driver session taken up again"));
    EXPECT_EQ(host.list_json()["gpus"][1]["memory_used_bytes"], 0);

    // It serves on, with NVML open again: an observer of both GPUs once more.
    const json listing = host.list_json();
    const json* seen = process_in(listing, agent.pid());
    ASSERT_NE(seen, nullptr);
    EXPECT_EQ((*seen)["role"], "observer");
    EXPECT_EQ(agent.client().Get("/healthz")->status, 200);
}

TEST(Observers, AResetIsToldWhichOtherMonitorsHoldTheGpu) {
    if (::geteuid() != 0) GTEST_SKIP() << "resetting a GPU needs root";
    SimulatedHost host;
    Workload dcgm = host.observe({"--name", "nv-hostengine", "--gpu", "1"});
    CommandResult plan = host.gpukill({"reset", "--gpu", "1", "--dry-run", "--json"});
    ASSERT_EQ(plan.exit_code, 0) << plan.out << plan.err;
    const json doc = json::parse(plan.out);
    EXPECT_TRUE(doc["holders"].empty());
    bool named = false;
    for (const json& note : doc["gpus"][0]["notes"]) {
        named |= note.get<std::string>().find("PID " + std::to_string(dcgm.pid()) +
                                              " (nv-hostengine)") != std::string::npos;
    }
    EXPECT_TRUE(named) << doc.dump();
    // nvidia-smi refuses while it holds the GPU; gpukill never ends an observer.
    CommandResult refused = host.gpukill({"reset", "--gpu", "1", "--force"});
    EXPECT_NE(refused.exit_code, 0) << refused.out;
    EXPECT_TRUE(process_alive(dcgm.pid()));
}

// node-problem-detector shows the first line: the worst problem, not the first found.
TEST(CheckVerdicts, TheMostSevereProblemComesFirst) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to see every holder";
    SimulatedHost host("gpus:\n  - {}\n  - failures: {lost: true}\n");
    host.leak(0, "1G");
    CommandResult check = host.gpukill({"check", "--no-rogue"});
    EXPECT_EQ(check.exit_code, 1);
    EXPECT_EQ(check.out, "2 problems: GPU 1 has fallen off the bus\n") << check.out;
}

TEST(CheckVerdicts, AnotherPidNamespaceCannotSeeAndSaysUnknown) {
    if (::geteuid() != 0) GTEST_SKIP() << "unshare --pid needs root";
    SimulatedHost host;
    Workload job = host.run({"--gpu", "0", "--mem", "2G"});
    // As in a pod without hostPID: its own /proc, the driver lists none of the host's PIDs.
    CommandResult probe =
        run_command({"/usr/bin/unshare", "--pid", "--fork", "--mount-proc", "true"});
    if (probe.exit_code != 0) GTEST_SKIP() << "unshare --pid unavailable: " << probe.err;
    CommandResult check = run_command({"/usr/bin/unshare", "--pid", "--fork", "--mount-proc",
                                       GPUKILL_BIN, "check", "--no-rogue", "--json"},
                                      host.env());
    EXPECT_EQ(check.exit_code, 2) << check.out << check.err;
    const json doc = json::parse(check.out);
    EXPECT_EQ(doc["verdict"], "unknown");
    EXPECT_TRUE(doc["problems"].empty()) << "no soft-lock is claimed: " << check.out;
    EXPECT_NE(doc["summary"].get<std::string>().find("PID namespace"), std::string::npos)
        << check.out;
    EXPECT_TRUE(process_alive(job.pid()));
}

TEST(CheckVerdicts, OtherUsersHoldersUnseenIsUnknownNeverASoftLock) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to run a workload nobody cannot see";
    SimulatedHost host;
    open_host_to_all_users(host);
    Workload job = host.run({"--gpu", "0", "--mem", "2G", "--workers", "1"});
    job.kill_parent();  // root's orphaned worker holds the memory; nobody cannot see it
    std::map<std::string, std::string> env = host.env();
    env["GPUKILL_CONFIG_DIR"] = host.root() + "/../config";
    constexpr uid_t kNobody = 65534;
    CommandResult check =
        run_command({GPUKILL_BIN, "check", "--no-rogue", "--json"}, env, 30, kNobody);
    EXPECT_EQ(check.exit_code, 2) << check.out << check.err;
    const json doc = json::parse(check.out);
    EXPECT_EQ(doc["verdict"], "unknown");
    EXPECT_TRUE(doc["problems"].empty()) << "no soft-lock, no reset advised: " << check.out;
}

TEST(CheckVerdicts, DeviceFilesWithoutTheDriverLibraryAreUnknown) {
    if (void* real = ::dlopen("libnvidia-ml.so.1", RTLD_LAZY)) {
        ::dlclose(real);
        GTEST_SKIP() << "a real NVIDIA management library is installed here";
    }
    SimulatedHost host;  // DIR/dev/nvidia0 and nvidia1 exist
    CommandResult check = run_command(
        {"/usr/bin/env", "-u", "GPUKILL_NVML_LIBRARY", GPUKILL_BIN, "check", "--no-rogue"},
        host.env());
    EXPECT_EQ(check.exit_code, 2) << check.out << check.err;
    EXPECT_EQ(check.out.rfind("unknown: 2 NVIDIA device files (", 0), 0u) << check.out;
}

}  // namespace
}  // namespace observers_test
}  // namespace gpukill::testing

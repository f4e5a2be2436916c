// Holders by a mapping alone (issue 32): a process that maps /dev/nvidiaN and closes the
// descriptor keeps the GPU client alive, and fork copies the mapping to its workers.
// `gpusim run --mapping-only` makes such a workload; gpukill must list it, plan and end
// it with `kill --gpu N` and `kill --pid`, and find what `fuser -v` finds, with its access.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "support.hpp"

namespace gpukill::testing {
namespace {

constexpr std::uint64_t kGiB = 1ULL << 30;

const nlohmann::json* listed(const nlohmann::json& doc, pid_t pid) {
    for (const auto& process : doc["processes"]) {
        if (process["pid"] == pid) return &process;
    }
    return nullptr;
}

const nlohmann::json* kill_target(const nlohmann::json& doc, pid_t pid) {
    for (const auto& target : doc["targets"]) {
        if (target["pid"] == pid) return &target;
    }
    return nullptr;
}

nlohmann::json kill_document(const SimulatedHost& host, std::vector<std::string> args,
                             CommandResult& result) {
    args.insert(args.begin(), "kill");
    args.push_back("--json");
    result = host.gpukill(args);
    return result.out.empty() ? nlohmann::json() : nlohmann::json::parse(result.out);
}

// How a listed process holds `file` (device_file_access), null when it does not.
nlohmann::json access_to(const nlohmann::json& process, const std::string& file) {
    const auto access = process.find("device_file_access");
    if (access == process.end() || !access->is_object()) return nullptr;
    const auto found = access->find(file);
    return found == access->end() ? nlohmann::json() : *found;
}

std::vector<pid_t> everyone(const Workload& job) {
    std::vector<pid_t> pids{job.pid()};
    pids.insert(pids.end(), job.workers().begin(), job.workers().end());
    return pids;
}

TEST(MappingHolders, AMappingOnlyWorkloadAndItsWorkersAreListed) {
    SimulatedHost host;
    Workload job = host.run({"--gpu", "0", "--mem", "1G", "--workers", "2", "--mapping-only"});
    const std::string gpu_node = host.env().at("GPUKILL_DEVFS") + "/nvidia0";
    const nlohmann::json doc = host.list_json();
    for (pid_t pid : everyone(job)) {
        const nlohmann::json* process = listed(doc, pid);
        ASSERT_NE(process, nullptr) << pid << " holds GPU 0 by its mappings:\n" << doc.dump(1);
        EXPECT_EQ(access_to(*process, gpu_node), nlohmann::json({"mapping"})) << pid;
        EXPECT_EQ((*process)["device_files"].size(), 3u);  // nvidiactl, nvidia-uvm, nvidia0
        ASSERT_EQ((*process)["gpus"].size(), 1u);
        EXPECT_EQ((*process)["gpus"][0]["index"], 0);
        EXPECT_EQ((*process)["role"], "workload");
    }
    // The driver lists the allocating parent; its workers only by their mappings.
    const nlohmann::json* worker = listed(doc, job.workers()[0]);
    ASSERT_NE(worker, nullptr);
    EXPECT_EQ((*worker)["gpus"][0]["seen_by"], nlohmann::json({"device_file"}));
}

TEST(MappingHolders, KillByGpuEndsTheWorkloadAndItsWorkers) {
    SimulatedHost host;
    Workload job = host.run({"--gpu", "1", "--mem", "2G", "--workers", "2", "--mapping-only"});
    CommandResult result;
    nlohmann::json doc = kill_document(host, {"--gpu", "1", "--batch", "--force"}, result);
    ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
    for (pid_t pid : everyone(job)) {
        EXPECT_NE(kill_target(doc, pid), nullptr) << pid << " was not planned:\n" << result.out;
        EXPECT_FALSE(process_alive(pid)) << pid;
    }
    ASSERT_EQ(doc["gpus"].size(), 1u);
    EXPECT_EQ(doc["gpus"][0]["released"], true);
    EXPECT_EQ(doc["gpus"][0]["memory_reclaimed_bytes"], 2 * kGiB);
}

// The issue's case: nothing the driver lists, only processes holding mappings. Before,
// `kill --gpu N --batch` planned nothing.
TEST(MappingHolders, OrphanedWorkersHoldingOnlyMappingsAreFoundByGpu) {
    SimulatedHost host;
    Workload job = host.run({"--gpu", "0", "--mem", "3G", "--workers", "2", "--mapping-only"});
    job.kill_parent();
    CommandResult result;
    nlohmann::json doc =
        kill_document(host, {"--gpu", "0", "--orphaned", "--batch", "--force"}, result);
    ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
    for (pid_t worker : job.workers()) {
        const nlohmann::json* target = kill_target(doc, worker);
        ASSERT_NE(target, nullptr) << result.out;
        EXPECT_FALSE(process_alive(worker));
    }
    EXPECT_EQ(doc["gpus"][0]["released"], true);
    EXPECT_EQ(doc["gpus"][0]["memory_reclaimed_bytes"], 3 * kGiB);
}

TEST(MappingHolders, KillByPidTakesTheWorkersHoldingTheGpuByMapping) {
    SimulatedHost host;
    Workload job = host.run({"--gpu", "0", "--mem", "1G", "--workers", "2", "--mapping-only"});
    CommandResult result;
    nlohmann::json doc = kill_document(host, {"--pid", std::to_string(job.pid())}, result);
    ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
    for (pid_t worker : job.workers()) {
        const nlohmann::json* target = kill_target(doc, worker);
        ASSERT_NE(target, nullptr) << result.out;
        EXPECT_EQ((*target)["reason"], "holds_same_gpu");
        EXPECT_FALSE(process_alive(worker));
    }
    EXPECT_EQ(doc["gpus"][0]["memory_reclaimed_bytes"], kGiB);
}

// PID -> fuser's letters reduced to what gpukill says: "f" an open descriptor (f or F),
// "m" a mapping. From `fuser -v FILE` with its two streams in one, in order: a row is
// "USER PID ACCESS COMMAND" (the PID goes to stdout, the rest to stderr).
std::map<pid_t, std::string> fuser_access(const std::string& file) {
    const CommandResult run = run_command({"/bin/sh", "-c", "exec fuser -v \"$0\" 2>&1", file});
    std::map<pid_t, std::string> access;
    const std::regex row(R"(\s(\d+)\s+([.cCeEfFrRmM]{5})\s)");
    std::istringstream lines(run.out);
    for (std::string line; std::getline(lines, line);) {
        std::smatch found;
        if (!std::regex_search(line, found, row)) continue;
        const std::string letters = found[2];
        std::string held;
        if (letters.find_first_of("fF") != std::string::npos) held += "f";
        if (letters.find('m') != std::string::npos) held += "m";
        if (!held.empty()) access[std::stoi(found[1])] = held;
    }
    return access;
}

std::map<pid_t, std::string> gpukill_access(const nlohmann::json& doc, const std::string& file) {
    std::map<pid_t, std::string> access;
    for (const auto& process : doc["processes"]) {
        const nlohmann::json how = access_to(process, file);
        if (how.is_null()) continue;
        std::string held;
        for (const auto& word : how) held += word == "descriptor" ? "f" : "m";
        access[process["pid"].get<pid_t>()] = held;
    }
    return access;
}

TEST(MappingHolders, TheHoldersAndHowTheyHoldAreWhatFuserFinds) {
    if (run_command({"/bin/sh", "-c", "command -v fuser"}).exit_code != 0) {
        GTEST_SKIP() << "fuser (psmisc) is not installed";
    }
    SimulatedHost host;
    Workload mapped = host.run({"--gpu", "0", "--mem", "1G", "--workers", "2", "--mapping-only"});
    Workload opened = host.run({"--gpu", "1", "--mem", "1G", "--workers", "1"});
    const nlohmann::json doc = host.list_json();
    const std::string devfs = host.env().at("GPUKILL_DEVFS");
    std::set<pid_t> seen;
    for (const char* node : {"nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm"}) {
        const std::string file = devfs + "/" + node;
        const std::map<pid_t, std::string> fuser = fuser_access(file);
        EXPECT_EQ(gpukill_access(doc, file), fuser) << file;
        for (const auto& [pid, how] : fuser) seen.insert(pid);
    }
    // Both workloads whole: the mapping-only one as "m", the other as "fm" (it maps too).
    for (const Workload* job : {&mapped, &opened}) {
        for (pid_t pid : everyone(*job)) EXPECT_TRUE(seen.contains(pid)) << pid;
    }
    EXPECT_EQ(fuser_access(devfs + "/nvidia0").at(mapped.pid()), "m");
    EXPECT_EQ(fuser_access(devfs + "/nvidia1").at(opened.pid()), "fm");
}

}  // namespace
}  // namespace gpukill::testing

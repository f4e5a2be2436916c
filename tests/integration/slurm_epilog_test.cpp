// deploy/slurm's epilog and prolog on a simulated host, as slurmd runs them: the job's
// leftover workers (in the job's real cgroup) are ended and their memory comes back, a
// leak drains the node with its reason, and a dirty GPU stops a job from starting. Beside
// them the NVIDIA stack's monitors and gpukill's agent run, as on a real node, and
// SLURM_JOB_GPUS names device files, not gpukill's GPU indices.
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>

#include "agent_support.hpp"
#include "support.hpp"

namespace gpukill::testing {
namespace {

const std::string kEpilog = std::string(GPUKILL_DEPLOY_DIR) + "/slurm/gpukill-epilog.sh";
const std::string kProlog = std::string(GPUKILL_DEPLOY_DIR) + "/slurm/gpukill-prolog.sh";

// A Slurm job's cgroup as slurmd's cgroup v1 layout makes it (/slurm/uid_U/job_J/step_0),
// in the named systemd hierarchy where this machine lets root create one. Removed at the
// end, its remaining processes moved back to the root first.
class JobCgroup {
  public:
    explicit JobCgroup(std::string job_id) : job_id_(std::move(job_id)) {
        for (const char* hierarchy : {"/sys/fs/cgroup/systemd", "/sys/fs/cgroup/unified"}) {
            const std::string step =
                std::string(hierarchy) + "/slurm/uid_0/job_" + job_id_ + "/step_0";
            std::error_code failed;
            std::filesystem::create_directories(step, failed);
            if (!failed && std::filesystem::exists(step + "/cgroup.procs")) {
                hierarchy_ = hierarchy;
                step_ = step;
                return;
            }
        }
    }
    ~JobCgroup() {
        if (step_.empty()) return;
        for (pid_t pid : members()) {
            std::ofstream(hierarchy_ + "/cgroup.procs") << pid << "\n";
        }
        std::error_code ignored;
        for (std::string dir = step_; dir.size() > hierarchy_.size() + 6;
             dir = std::filesystem::path(dir).parent_path().string()) {
            std::filesystem::remove(dir, ignored);  // rmdir: only an empty cgroup goes
        }
    }
    bool usable() const { return !step_.empty(); }
    bool add(pid_t pid) const {
        std::ofstream procs(step_ + "/cgroup.procs");
        procs << pid << "\n";
        procs.flush();
        return static_cast<bool>(procs);
    }
    std::vector<pid_t> members() const {
        std::vector<pid_t> pids;
        std::ifstream procs(step_ + "/cgroup.procs");
        for (pid_t pid; procs >> pid;) pids.push_back(pid);
        return pids;
    }

  private:
    std::string job_id_;
    std::string hierarchy_;
    std::string step_;
};

std::string unique_job_id() {
    return std::to_string(700000 + ::getpid() % 100000);
}

CommandResult run_slurm_script(const SimulatedHost& host, const std::string& script,
                               const std::map<std::string, std::string>& slurm) {
    std::map<std::string, std::string> env = host.env();
    env["GPUKILL"] = GPUKILL_BIN;
    env["SLURMD_NODENAME"] = "gpu-test-07";
    env["GPUKILL_EPILOG_TIMEOUT"] = "3";
    for (const auto& [name, value] : slurm) env[name] = value;
    return run_command({"/bin/bash", script}, env, 60);
}

std::uint64_t gpu_memory_used(const SimulatedHost& host, unsigned index) {
    const auto snapshot = host.list_json();
    for (const auto& gpu : snapshot["gpus"]) {
        if (gpu["index"] == index) return gpu["memory_used_bytes"].get<std::uint64_t>();
    }
    return 0;
}

TEST(SlurmEpilog, EndsTheJobsLeftoverWorkersAndSparesOtherJobs) {
    SimulatedHost host;
    const std::string job = unique_job_id();
    JobCgroup cgroup(job);
    if (!cgroup.usable()) GTEST_SKIP() << "cannot create a Slurm-style cgroup here (not root?)";

    Workload finished = host.run({"--gpu", "0", "--mem", "2G", "--workers", "2"});
    for (pid_t worker : finished.workers()) ASSERT_TRUE(cgroup.add(worker));
    Workload other_job = host.run({"--gpu", "0", "--mem", "1G"});
    finished.kill_parent();  // the trainer is gone; its DataLoader workers hold GPU 0
    const std::uint64_t before = gpu_memory_used(host, 0);

    // No SLURM_JOB_UID: only the job's cgroup decides (the other job runs as the same user).
    const auto result =
        run_slurm_script(host, kEpilog, {{"SLURM_JOB_ID", job}, {"SLURM_JOB_GPUS", "0"}});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(result.err.find("ended 2 leftover process(es) of the job"), std::string::npos)
        << result.err;
    for (pid_t worker : finished.workers()) EXPECT_FALSE(process_alive(worker)) << worker;
    EXPECT_TRUE(process_alive(other_job.pid()));
    EXPECT_EQ(before - gpu_memory_used(host, 0), finished.memory_bytes());
}

TEST(SlurmEpilog, DrainsWithTheReasonWhenAGpuStaysSoftLocked) {
    SimulatedHost host;
    host.leak(1, "3G");
    const auto result = run_slurm_script(
        host, kEpilog,
        {{"SLURM_JOB_ID", unique_job_id()}, {"SLURM_JOB_GPUS", "1"}, {"SLURM_JOB_UID", "0"}});
    EXPECT_EQ(result.exit_code, 1) << result.err;
    EXPECT_NE(result.err.find("draining gpu-test-07: gpukill: GPU 1: 3.0 GiB used and no process "
                              "holds it"),
              std::string::npos)
        << result.err;
    EXPECT_EQ(result.err.find("GPU 1: GPU 1:"), std::string::npos) << result.err;
}

TEST(SlurmEpilog, LeavesACleanGpuAndAJoblessRunAlone) {
    SimulatedHost host;
    Workload bystander = host.run({"--gpu", "1", "--mem", "1G"});
    auto clean = run_slurm_script(host, kEpilog,
                                  {{"SLURM_JOB_ID", unique_job_id()}, {"SLURM_JOB_GPUS", "0"}});
    EXPECT_EQ(clean.exit_code, 0) << clean.err;
    auto no_job =
        run_slurm_script(host, kEpilog, {{"SLURM_JOB_GPUS", "1"}, {"SLURM_JOB_UID", "0"}});
    EXPECT_EQ(no_job.exit_code, 0) << no_job.err;
    EXPECT_TRUE(process_alive(bystander.pid()));  // another GPU, then no job named at all
}

TEST(SlurmProlog, RefusesToStartAJobOnADirtyGpu) {
    SimulatedHost host;
    Workload squatter = host.run({"--gpu", "1", "--mem", "1G", "--name", "squatter"});
    const std::string job = unique_job_id();
    auto dirty = run_slurm_script(host, kProlog, {{"SLURM_JOB_ID", job}, {"SLURM_JOB_GPUS", "1"}});
    EXPECT_EQ(dirty.exit_code, 1) << dirty.err;
    EXPECT_NE(dirty.err.find("dirty GPU before job " + job + ": PID " +
                             std::to_string(squatter.pid()) + " (squatter, user root) holds GPU 1"),
              std::string::npos)
        << dirty.err;
    auto clean = run_slurm_script(host, kProlog, {{"SLURM_JOB_ID", job}, {"SLURM_JOB_GPUS", "0"}});
    EXPECT_EQ(clean.exit_code, 0) << clean.err;
    EXPECT_TRUE(process_alive(squatter.pid()));  // the prolog only looks
}

std::string slurm_scratch_dir(const SimulatedHost& host, const std::string& name) {
    const std::string dir = std::filesystem::path(host.root()).parent_path().string() + "/" + name;
    std::filesystem::create_directories(dir);
    return dir;
}

std::vector<nlohmann::json> slurm_audit_records(const SimulatedHost& host) {
    std::ifstream log(host.env().at("GPUKILL_STATE_DIR") + "/audit.jsonl");
    std::vector<nlohmann::json> records;
    for (std::string line; std::getline(log, line);) records.push_back(nlohmann::json::parse(line));
    return records;
}

// A GPU Operator node between jobs: gpukill's agent, nvidia-persistenced and DCGM hold the
// GPUs' device files, and nothing uses them. The prolog lets the job start, the epilog
// finds nothing to end, and none of the monitors is touched.
TEST(SlurmWithTheNvidiaStack, AnIdleNodeWithTheAgentAndMonitorsIsClean) {
    if (::geteuid() != 0) GTEST_SKIP() << "slurmd runs these as root";
    SimulatedHost host;
    Workload persistenced = host.observe({"--name", "nvidia-persistenced"});
    Workload dcgm = host.observe({"--name", "nv-hostengine"});
    const std::string tokens = write_token_file(slurm_scratch_dir(host, "secrets"));
    RunningAgent agent(host, {"--token-file", tokens, "--interval", "0.2"});
    const std::string job = unique_job_id();

    auto prolog =
        run_slurm_script(host, kProlog, {{"SLURM_JOB_ID", job}, {"SLURM_JOB_GPUS", "0,1"}});
    EXPECT_EQ(prolog.exit_code, 0) << prolog.err;
    EXPECT_EQ(prolog.err, "");
    auto epilog = run_slurm_script(
        host, kEpilog, {{"SLURM_JOB_ID", job}, {"SLURM_JOB_GPUS", "0,1"}, {"SLURM_JOB_UID", "0"}});
    EXPECT_EQ(epilog.exit_code, 0) << epilog.err;
    EXPECT_EQ(epilog.err.find("draining"), std::string::npos) << epilog.err;
    for (pid_t pid : {persistenced.pid(), dcgm.pid(), agent.pid()}) {
        EXPECT_TRUE(process_alive(pid)) << pid;
    }
}

// The driver numbers its device files in probe order, gpukill (and NVML) its GPUs by PCI
// address: here /dev/nvidia0 is GPU 1 and /dev/nvidia1 is GPU 0.
constexpr const char* kSwappedMinors = "gpus:\n  - {minor: 1}\n  - {minor: 0}\n";

TEST(SlurmGpuNumbers, SlurmsDeviceNumbersAreTranslatedToGpukillsGpus) {
    if (::geteuid() != 0) GTEST_SKIP() << "slurmd runs these as root";
    SimulatedHost host(kSwappedMinors);
    Workload squatter = host.run({"--gpu", "0", "--mem", "1G", "--name", "squatter"});
    const std::string job = unique_job_id();

    // The job was given /dev/nvidia0: GPU 1, which is free.
    auto free_gpu =
        run_slurm_script(host, kProlog, {{"SLURM_JOB_ID", job}, {"SLURM_JOB_GPUS", "0"}});
    EXPECT_EQ(free_gpu.exit_code, 0) << free_gpu.err;
    // /dev/nvidia1 is GPU 0, which the squatter uses.
    auto taken = run_slurm_script(host, kProlog, {{"SLURM_JOB_ID", job}, {"SLURM_JOB_GPUS", "1"}});
    EXPECT_EQ(taken.exit_code, 1) << taken.err;
    EXPECT_NE(taken.err.find("holds GPU 0"), std::string::npos) << taken.err;
    auto missing =
        run_slurm_script(host, kProlog, {{"SLURM_JOB_ID", job}, {"SLURM_JOB_GPUS", "5"}});
    EXPECT_EQ(missing.exit_code, 1) << missing.err;
    EXPECT_NE(missing.err.find("no GPU has device number 5"), std::string::npos) << missing.err;

    // The epilog of a job on /dev/nvidia0 leaves GPU 0's process alone; on /dev/nvidia1 it
    // ends it.
    auto other = run_slurm_script(
        host, kEpilog, {{"SLURM_JOB_ID", job}, {"SLURM_JOB_GPUS", "0"}, {"SLURM_JOB_UID", "0"}});
    EXPECT_EQ(other.exit_code, 0) << other.err;
    EXPECT_TRUE(process_alive(squatter.pid()));
    auto own = run_slurm_script(
        host, kEpilog, {{"SLURM_JOB_ID", job}, {"SLURM_JOB_GPUS", "1"}, {"SLURM_JOB_UID", "0"}});
    EXPECT_EQ(own.exit_code, 0) << own.err;
    EXPECT_FALSE(process_alive(squatter.pid()));
}

// Processes that ignore SIGTERM on every GPU of an 8-GPU job cost the epilog one
// SIGTERM wait, not eight: the GPUs are handled at once. The audit log shows it: every
// run has planned before any run has a result.
TEST(SlurmEpilog, HandlesAllOfAJobsGpusAtOnce) {
    if (::geteuid() != 0) GTEST_SKIP() << "slurmd runs these as root";
    SimulatedHost host("gpu_count: 4\n");
    std::vector<Workload> stubborn;
    for (int gpu = 0; gpu < 4; ++gpu) {
        stubborn.push_back(
            host.run({"--gpu", std::to_string(gpu), "--mem", "1G", "--ignore-term"}));
    }
    auto result = run_slurm_script(host, kEpilog,
                                   {{"SLURM_JOB_ID", unique_job_id()},
                                    {"SLURM_JOB_GPUS", "0,1,2,3"},
                                    {"SLURM_JOB_UID", "0"},
                                    {"GPUKILL_EPILOG_TIMEOUT", "5"}});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    for (const Workload& w : stubborn) EXPECT_FALSE(process_alive(w.pid()));

    std::size_t last_planned = 0;
    std::size_t first_result = SIZE_MAX;
    std::set<std::string> runs;
    const auto records = slurm_audit_records(host);
    for (std::size_t i = 0; i < records.size(); ++i) {
        const nlohmann::json& record = records[i];
        if (record["command"].get<std::string>().find("--user") == std::string::npos) continue;
        runs.insert(record["run_id"].get<std::string>());
        if (record["event"] == "planned") last_planned = i;
        if (record["event"] == "result") first_result = std::min(first_result, i);
    }
    EXPECT_EQ(runs.size(), 4u);
    EXPECT_LT(last_planned, first_result) << "one GPU after another";
}

}  // namespace
}  // namespace gpukill::testing

// deploy/slurm's epilog and prolog on a simulated host, as slurmd runs them: the job's
// leftover workers (in the job's real cgroup) are ended and their memory comes back, a
// leak drains the node with its reason, and a dirty GPU stops a job from starting.
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

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
    EXPECT_NE(result.err.find("GPU 0: ended 2 leftover process(es) of the job"), std::string::npos)
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
    EXPECT_NE(result.err.find("draining gpu-test-07: gpukill: GPU 1:"), std::string::npos)
        << result.err;
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
    EXPECT_NE(dirty.err.find("dirty GPU before job " + job + ": GPU 1:"), std::string::npos)
        << dirty.err;
    auto clean = run_slurm_script(host, kProlog, {{"SLURM_JOB_ID", job}, {"SLURM_JOB_GPUS", "0"}});
    EXPECT_EQ(clean.exit_code, 0) << clean.err;
    EXPECT_TRUE(process_alive(squatter.pid()));  // the prolog only looks
}

}  // namespace
}  // namespace gpukill::testing

// gpusim run: real workload processes and how the simulated driver sees them.

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "nvml_fixture.hpp"
#include "state/proc_identity.hpp"
#include "workload_guard.hpp"

namespace {

using namespace std::chrono_literals;
using gpusim_test::NvmlTest;
using gpusim_test::Workload;
using nvml_client::ProcessV2;
namespace fs = std::filesystem;

constexpr unsigned long long kGiB = 1ULL << 30;

class WorkloadTest : public NvmlTest {
  protected:
    void SetUp() override { ASSERT_NO_FATAL_FAILURE(start()); }

    std::vector<std::string> run_args(const std::string& gpu, const std::string& memory,
                                      std::vector<std::string> extra = {}) const {
        std::vector<std::string> args{"--root", root_arg(), "--gpu", gpu, "--mem", memory};
        args.insert(args.end(), extra.begin(), extra.end());
        return args;
    }

    // Whether `pid` has `target` open (what gpukill's fd sweep looks for).
    static bool holds_open(pid_t pid, const fs::path& target) {
        std::error_code error;
        for (const auto& entry :
             fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", error)) {
            std::error_code ignored;
            if (fs::read_symlink(entry.path(), ignored) == target) return true;
        }
        return false;
    }
};

std::vector<unsigned int> pids_of(const std::vector<ProcessV2>& entries) {
    std::vector<unsigned int> pids;
    for (const ProcessV2& entry : entries) pids.push_back(entry.pid);
    std::sort(pids.begin(), pids.end());
    return pids;
}

TEST_F(WorkloadTest, MemoryAndTheAllocatingProcessAppearWhileItRuns) {
    Workload workload(run_args("0", "1G", {"--util", "30"}));
    ASSERT_TRUE(workload.ready()) << workload.failure_text();

    const auto self_stat = gpusim::read_proc_stat(workload.pid());
    ASSERT_TRUE(self_stat.has_value());
    EXPECT_EQ(workload.ready_line(),
              "{\"pid\":" + std::to_string(workload.pid()) +
                  ",\"start_time_ticks\":" + std::to_string(self_stat->start_time_ticks) +
                  ",\"workers\":[],\"gpu\":0,\"memory_bytes\":1073741824}");

    EXPECT_EQ(used(0), kGiB);
    EXPECT_EQ(used(1), 0U);
    const auto entries = processes(0);
    ASSERT_EQ(entries.size(), 1U);
    EXPECT_EQ(entries[0].pid, static_cast<unsigned int>(workload.pid()));
    EXPECT_EQ(entries[0].used_gpu_memory, kGiB);
    EXPECT_EQ(entries[0].gpu_instance_id, 0xFFFFFFFFU);
    EXPECT_EQ(entries[0].compute_instance_id, 0xFFFFFFFFU);
    EXPECT_TRUE(processes(1).empty());

    nvml_client::Utilization utilization{};
    ASSERT_EQ(nvml().fn<nvml_client::Return(nvml_client::Device, nvml_client::Utilization*)>(
                  "nvmlDeviceGetUtilizationRates")(nvml().device(0), &utilization),
              nvml_client::kSuccess);
    EXPECT_EQ(utilization.gpu, 30U);
    EXPECT_EQ(utilization.memory, 15U);

    // Like a CUDA process: the device nodes are open and mapped.
    for (const char* node : {"nvidia0", "nvidiactl", "nvidia-uvm"}) {
        EXPECT_TRUE(holds_open(workload.pid(), root() / "dev" / node)) << node;
    }
    const std::string maps =
        gpusim_test::read_text("/proc/" + std::to_string(workload.pid()) + "/maps");
    EXPECT_NE(maps.find((root() / "dev" / "nvidia0").string()), std::string::npos);
}

TEST_F(WorkloadTest, OrphanedWorkersKeepTheMemoryButLeaveTheProcessList) {
    Workload workload(run_args("0", "1G", {"--workers", "2"}));
    ASSERT_TRUE(workload.ready()) << workload.failure_text();
    ASSERT_EQ(workload.worker_pids().size(), 2U);
    EXPECT_EQ(pids_of(processes(0)),
              std::vector<unsigned int>{static_cast<unsigned>(workload.pid())});

    workload.parent().signal(SIGKILL);
    const auto status = workload.parent().wait_exit(10s);
    ASSERT_TRUE(status.has_value());
    EXPECT_EQ(*status, SIGKILL);

    // The driver lists nobody, yet the memory is still in use: the workers hold it.
    EXPECT_TRUE(processes(0).empty());
    EXPECT_EQ(used(0), kGiB);
    for (pid_t worker : workload.worker_pids()) {
        EXPECT_TRUE(holds_open(worker, root() / "dev" / "nvidia0")) << worker;
    }

    workload.kill_workers();
    EXPECT_EQ(used(0), 0U);
    EXPECT_TRUE(processes(0).empty());
}

// --mapping-only: each node's descriptor closed once mapped, in the parent and so in the
// workers forked after; the allocation as without it.
TEST_F(WorkloadTest, MappingOnlyHoldsTheNodesByMappingsAloneInWorkersToo) {
    Workload workload(run_args("1", "1G", {"--workers", "2", "--mapping-only"}));
    ASSERT_TRUE(workload.ready()) << workload.failure_text();
    EXPECT_EQ(used(1), kGiB);
    EXPECT_EQ(pids_of(processes(1)),
              std::vector<unsigned int>{static_cast<unsigned>(workload.pid())});
    std::vector<pid_t> everyone = workload.worker_pids();
    everyone.push_back(workload.pid());
    ASSERT_EQ(everyone.size(), 3U);
    for (pid_t pid : everyone) {
        const std::string maps = gpusim_test::read_text("/proc/" + std::to_string(pid) + "/maps");
        for (const char* node : {"nvidia1", "nvidiactl", "nvidia-uvm"}) {
            EXPECT_FALSE(holds_open(pid, root() / "dev" / node)) << pid << " " << node;
            EXPECT_NE(maps.find(" " + (root() / "dev" / node).string() + "\n"), std::string::npos)
                << pid << " " << node;
        }
    }
}

TEST_F(WorkloadTest, SigtermEndsTheWorkloadPromptlyWithStatusZero) {
    Workload workload(run_args("1", "512M", {"--workers", "1"}));
    ASSERT_TRUE(workload.ready()) << workload.failure_text();
    workload.worker(0).signal(SIGTERM);
    workload.parent().signal(SIGTERM);
    const auto status = workload.parent().wait_exit(10s);
    ASSERT_TRUE(status.has_value());
    EXPECT_EQ(*status, 0);
    ASSERT_TRUE(workload.worker(0).wait_exit(10s).has_value());
    EXPECT_EQ(used(1), 0U);
}

TEST_F(WorkloadTest, IgnoreTermSurvivesSigterm) {
    Workload workload(run_args("0", "1G", {"--ignore-term", "--workers", "1"}));
    ASSERT_TRUE(workload.ready()) << workload.failure_text();
    const unsigned long long term_bit = 1ULL << (SIGTERM - 1);
    for (pid_t pid : {workload.pid(), workload.worker_pids()[0]}) {
        // SIG_IGN: the kernel discards SIGTERM when it is sent, so nothing can race below.
        EXPECT_NE(gpusim_test::signal_mask(pid, "SigIgn") & term_bit, 0U) << pid;
    }
    workload.parent().signal(SIGTERM);
    workload.worker(0).signal(SIGTERM);
    // A bounded negative check: neither goes away.
    EXPECT_FALSE(workload.parent().wait_exit(200ms).has_value());
    EXPECT_FALSE(workload.worker(0).exited());
    EXPECT_EQ(pids_of(processes(0)),
              std::vector<unsigned int>{static_cast<unsigned>(workload.pid())});
}

TEST_F(WorkloadTest, TermDelayExitsAfterTheDelay) {
    Workload workload(run_args("0", "1G", {"--term-delay", "0.3", "--workers", "1"}));
    ASSERT_TRUE(workload.ready()) << workload.failure_text();
    const auto sent = std::chrono::steady_clock::now();
    workload.parent().signal(SIGTERM);
    workload.worker(0).signal(SIGTERM);
    const auto status = workload.parent().wait_exit(10s);
    const auto parent_took = std::chrono::steady_clock::now() - sent;
    ASSERT_TRUE(status.has_value());
    EXPECT_EQ(*status, 0);
    ASSERT_TRUE(workload.worker(0).wait_exit(10s).has_value());
    const auto worker_took = std::chrono::steady_clock::now() - sent;
    EXPECT_GE(parent_took, 300ms);
    EXPECT_GE(worker_took, 300ms);
    EXPECT_LT(parent_took, 5s);
    EXPECT_EQ(used(0), 0U);
}

TEST_F(WorkloadTest, NameSetsCommAndArgv0ForParentAndWorkers) {
    Workload workload(run_args("0", "1G", {"--name", "data_loader_main", "--workers", "1"}));
    ASSERT_TRUE(workload.ready()) << workload.failure_text();
    for (pid_t pid : {workload.pid(), workload.worker_pids()[0]}) {
        EXPECT_EQ(gpusim_test::comm_of(pid), "data_loader_mai") << pid;  // 15 characters
        EXPECT_EQ(gpusim_test::argv0_of(pid), "data_loader_main") << pid;
    }
    EXPECT_EQ(pids_of(processes(0)),
              std::vector<unsigned int>{static_cast<unsigned>(workload.pid())});
}

TEST_F(WorkloadTest, ConcurrentRunsOnOneGpuAreAllCounted) {
    std::vector<std::unique_ptr<Workload>> workloads;
    for (const char* memory : {"1G", "2G", "3G", "4G"}) {
        workloads.push_back(std::make_unique<Workload>(run_args("0", memory), false));
    }
    std::vector<unsigned int> expected;
    for (auto& workload : workloads) {
        ASSERT_TRUE(workload->await_ready()) << workload->failure_text();
        expected.push_back(static_cast<unsigned int>(workload->pid()));
    }
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(used(0), 10 * kGiB);
    const auto entries = processes(0);
    EXPECT_EQ(pids_of(entries), expected);
    unsigned long long listed = 0;
    for (const ProcessV2& entry : entries) listed += entry.used_gpu_memory;
    EXPECT_EQ(listed, 10 * kGiB);
}

TEST_F(WorkloadTest, OutOfMemoryIsRefusedBeforeAnythingIsRegistered) {
    Workload big(run_args("0", "70G"));
    ASSERT_TRUE(big.ready()) << big.failure_text();
    const auto refused =
        gpusim_test::gpusim({"run", "--root", root_arg(), "--gpu", "0", "--mem", "10G"});
    EXPECT_EQ(refused.exit_code, 2);
    ASSERT_EQ(gpusim_test::split_lines(refused.err).size(), 1U) << refused.err;
    EXPECT_NE(refused.err.find("out of memory"), std::string::npos) << refused.err;
    EXPECT_EQ(used(0), 70 * kGiB);
    EXPECT_EQ(processes(0).size(), 1U);
}

TEST_F(WorkloadTest, BadArgumentsExitWithDocumentedCodes) {
    const auto run = [&](std::vector<std::string> args) {
        args.insert(args.begin(), "run");
        return gpusim_test::gpusim(args);
    };
    EXPECT_EQ(run(run_args("7", "1G")).exit_code, 2);
    EXPECT_EQ(run(run_args("0", "12X")).exit_code, 3);
    EXPECT_EQ(run(run_args("0", "-1G")).exit_code, 3);
    EXPECT_EQ(run(run_args("0", "1G", {"--util", "150"})).exit_code, 3);
    EXPECT_EQ(run({"--root", root_arg(), "--gpu", "0"}).exit_code, 3);
    const auto uninitialised =
        run({"--root", (tmp_ / "none").string(), "--gpu", "0", "--mem", "1G"});
    EXPECT_EQ(uninitialised.exit_code, 1);
    EXPECT_EQ(gpusim_test::split_lines(uninitialised.err).size(), 1U);
    EXPECT_EQ(used(0), 0U);
}

TEST_F(WorkloadTest, BackgroundPrintsTheReadyLineAndDetaches) {
    gpusim_test::become_subreaper();  // the detached workload is re-parented to us
    const auto result = gpusim_test::gpusim({"run", "--root", root_arg(), "--gpu", "0", "--mem",
                                             "2G", "--workers", "1", "--background"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto lines = gpusim_test::split_lines(result.out);
    ASSERT_EQ(lines.size(), 1U) << result.out;
    const auto ready = nlohmann::json::parse(lines[0]);
    const pid_t pid = ready.at("pid").get<pid_t>();
    const pid_t worker = ready.at("workers").at(0).get<pid_t>();
    // Both are now our (re-parented) children, so their pids cannot be recycled under us.
    // Declared worker first so the parent is killed and reaped first (see Workload).
    auto worker_process = gpusim_test::Tracked::open(worker);
    auto workload = gpusim_test::Tracked::open(pid);
    EXPECT_EQ(::getsid(pid), pid);  // its own session
    EXPECT_EQ(pids_of(processes(0)), std::vector<unsigned int>{static_cast<unsigned>(pid)});
    EXPECT_EQ(used(0), 2 * kGiB);
}

}  // namespace

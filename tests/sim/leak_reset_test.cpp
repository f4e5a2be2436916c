// gpusim leak and gpusim reset, and records whose pid no longer names their process.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "nvml_fixture.hpp"
#include "state/holder_lock.hpp"
#include "state/proc_identity.hpp"
#include "state/records.hpp"
#include "workload_guard.hpp"

namespace {

using namespace std::chrono_literals;
using gpusim_test::gpusim;
using gpusim_test::NvmlTest;
using gpusim_test::Workload;

constexpr unsigned long long kGiB = 1ULL << 30;

class LeakResetTest : public NvmlTest {
  protected:
    void SetUp() override { ASSERT_NO_FATAL_FAILURE(start()); }
};

TEST_F(LeakResetTest, LeakedMemoryStaysAfterEveryProcessIsGone) {
    const auto leak = gpusim({"leak", "--root", root_arg(), "--gpu", "0", "--mem", "2G"});
    ASSERT_EQ(leak.exit_code, 0) << leak.err;
    const auto line = nlohmann::json::parse(leak.out);
    EXPECT_EQ(line.at("gpu"), 0);
    EXPECT_EQ(line.at("memory_bytes"), 2 * kGiB);
    EXPECT_TRUE(line.contains("leak_id"));
    EXPECT_EQ(used(0), 2 * kGiB);
    EXPECT_TRUE(processes(0).empty());

    {
        Workload workload({"--root", root_arg(), "--gpu", "0", "--mem", "1G", "--workers", "1"});
        ASSERT_TRUE(workload.ready()) << workload.failure_text();
        EXPECT_EQ(used(0), 3 * kGiB);
    }  // SIGKILLed and reaped
    EXPECT_EQ(used(0), 2 * kGiB);
    EXPECT_TRUE(processes(0).empty());
}

TEST_F(LeakResetTest, LeakIsCheckedLikeAnAllocation) {
    EXPECT_EQ(gpusim({"leak", "--root", root_arg(), "--gpu", "5", "--mem", "1G"}).exit_code, 2);
    EXPECT_EQ(gpusim({"leak", "--root", root_arg(), "--gpu", "0", "--mem", "90G"}).exit_code, 2);
    EXPECT_EQ(gpusim({"leak", "--root", root_arg(), "--gpu", "0", "--mem", "lots"}).exit_code, 3);
    EXPECT_EQ(used(0), 0U);
}

TEST_F(LeakResetTest, ResetRefusesWhileHeldThenClearsLeaks) {
    ASSERT_EQ(gpusim({"leak", "--root", root_arg(), "--gpu", "0", "--mem", "2G"}).exit_code, 0);
    {
        Workload workload({"--root", root_arg(), "--gpu", "0", "--mem", "1G"});
        ASSERT_TRUE(workload.ready()) << workload.failure_text();
        const auto refused = gpusim({"reset", "--root", root_arg(), "--gpu", "0"});
        EXPECT_EQ(refused.exit_code, 2);
        EXPECT_NE(refused.err.find("in use"), std::string::npos) << refused.err;
        EXPECT_EQ(used(0), 3 * kGiB);
    }
    const auto reset = gpusim({"reset", "--root", root_arg(), "--gpu", "0"});
    ASSERT_EQ(reset.exit_code, 0) << reset.err;
    const auto line = nlohmann::json::parse(reset.out);
    EXPECT_EQ(line.at("freed_bytes"), 2 * kGiB);
    EXPECT_EQ(line.at("leaks_dropped"), 1);
    EXPECT_EQ(used(0), 0U);
}

TEST_F(LeakResetTest, ForcedResetDropsHeldAllocations) {
    Workload workload({"--root", root_arg(), "--gpu", "1", "--mem", "4G"});
    ASSERT_TRUE(workload.ready()) << workload.failure_text();
    const auto reset = gpusim({"reset", "--root", root_arg(), "--gpu", "1", "--force"});
    ASSERT_EQ(reset.exit_code, 0) << reset.err;
    EXPECT_EQ(nlohmann::json::parse(reset.out).at("allocations_dropped"), 1);
    EXPECT_EQ(used(1), 0U);
    EXPECT_TRUE(processes(1).empty());
}

// A record whose pid is alive but started at another time (the pid was recycled) keeps its
// memory while its lock is held, but the driver does not list the stranger.
TEST_F(LeakResetTest, ARecycledPidIsNotListed) {
    const gpusim::Root host = gpusim::root_at(root());
    const int holders = ::open(host.holders_lock().c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_GE(holders, 0);
    constexpr std::uint64_t kId = 1'000'000;  // far beyond the ids gpusim hands out here
    ASSERT_TRUE(gpusim::hold_byte(holders, kId).has_value());
    const auto self = gpusim::read_proc_stat(::getpid());
    ASSERT_TRUE(self.has_value());
    const gpusim::AllocationRecord record{kId, 0, ::getpid(), self->start_time_ticks + 1, kGiB, 0};
    ASSERT_TRUE(gpusim::write_allocation(host, record).has_value());

    EXPECT_TRUE(processes(0).empty());
    EXPECT_EQ(used(0), kGiB);
    ::close(holders);  // the last descriptor of the description: the lock goes
    EXPECT_EQ(used(0), 0U);
}

}  // namespace

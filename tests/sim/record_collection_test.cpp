// Dead allocation records are collected by the readers too: once every holder of an
// allocation is gone, the next NVML memory or process query deletes its record instead of
// leaving it to the next allocation on that GPU, so queries after many kills do not walk a
// growing pile of stale records. Leaks and held allocations stay.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "nvml_fixture.hpp"
#include "state/holder_lock.hpp"
#include "state/records.hpp"
#include "state/root.hpp"
#include "workload_guard.hpp"

namespace {

using gpusim_test::gpusim;
using gpusim_test::NvmlTest;
using gpusim_test::Workload;

constexpr unsigned long long kGiB = 1ULL << 30;

class RecordCollectionTest : public NvmlTest {
  protected:
    void SetUp() override { ASSERT_NO_FATAL_FAILURE(start()); }

    // Allocation records on disk, read directly (not through the library, which collects).
    std::size_t records(unsigned gpu) const {
        return gpusim::read_allocations(gpusim::root_at(root()), gpu).size();
    }
    std::size_t leaks(unsigned gpu) const {
        return gpusim::read_leaks(gpusim::root_at(root()), gpu).size();
    }

    // Starts `count` 1 GiB workloads on `gpu` that all run at once, then SIGKILLs and reaps
    // them: their records are dead and no allocation has happened since.
    void start_and_kill(unsigned gpu, int count) {
        std::vector<std::unique_ptr<Workload>> running;
        for (int i = 0; i < count; ++i) {
            running.push_back(std::make_unique<Workload>(std::vector<std::string>{
                "--root", root_arg(), "--gpu", std::to_string(gpu), "--mem", "1G"}));
            ASSERT_TRUE(running.back()->ready()) << running.back()->failure_text();
        }
    }
};

TEST_F(RecordCollectionTest, AMemoryQueryDeletesTheRecordsOfKilledWorkloads) {
    constexpr int kKilled = 8;
    ASSERT_EQ(gpusim({"leak", "--root", root_arg(), "--gpu", "0", "--mem", "2G"}).exit_code, 0);
    Workload kept({"--root", root_arg(), "--gpu", "0", "--mem", "1G"});
    ASSERT_TRUE(kept.ready()) << kept.failure_text();
    ASSERT_NO_FATAL_FAILURE(start_and_kill(0, kKilled));
    ASSERT_EQ(records(0), kKilled + 1U);

    EXPECT_EQ(used(0), 3 * kGiB);  // the kept workload and the leak
    EXPECT_EQ(records(0), 1U);     // only the kept workload's record is left
    EXPECT_EQ(leaks(0), 1U);
    EXPECT_EQ(used(0), 3 * kGiB);
    ASSERT_EQ(processes(0).size(), 1U);
    EXPECT_EQ(static_cast<pid_t>(processes(0)[0].pid), kept.pid());
}

// Orphaned workers hold the memory after their parent is killed: the record stays until the
// last of them is gone, and a process-list query collects it then.
TEST_F(RecordCollectionTest, AProcessQueryKeepsWorkerHeldRecordsAndCollectsThemAfterward) {
    Workload workload({"--root", root_arg(), "--gpu", "1", "--mem", "4G", "--workers", "2"});
    ASSERT_TRUE(workload.ready()) << workload.failure_text();
    workload.parent().signal(SIGKILL);
    ASSERT_TRUE(workload.parent().wait_exit(std::chrono::seconds(10)).has_value());

    EXPECT_TRUE(processes(1).empty());  // the allocating process is gone
    EXPECT_EQ(records(1), 1U);
    EXPECT_EQ(used(1), 4 * kGiB);

    workload.kill_workers();
    EXPECT_TRUE(processes(1).empty());
    EXPECT_EQ(records(1), 0U);
    EXPECT_EQ(used(1), 0U);
}

// A reader never waits for a writer: while state.lock is taken it answers without
// collecting, and the next query after the writer is done collects.
TEST_F(RecordCollectionTest, AReaderLeavesDeadRecordsWhileAWriterHoldsTheStateLock) {
    ASSERT_NO_FATAL_FAILURE(start_and_kill(0, 3));
    const int state_lock =
        ::open(gpusim::root_at(root()).state_lock().c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(state_lock, 0);
    ASSERT_EQ(::flock(state_lock, LOCK_EX), 0);

    EXPECT_EQ(used(0), 0U);
    EXPECT_EQ(records(0), 3U);

    ::close(state_lock);
    EXPECT_EQ(used(0), 0U);
    EXPECT_EQ(records(0), 0U);
}

// The collector's claim on a dead byte is a read lock: it keeps would-be holders out while the
// record is deleted, yet a concurrent reader's test does not mistake it for a holder.
TEST_F(RecordCollectionTest, AClaimOnAFreeByteIsNotAHolder) {
    const gpusim::Root host = gpusim::root_at(root());
    constexpr std::uint64_t kId = 2'000'000;  // far beyond the ids gpusim hands out here
    const int claimer = ::open(host.holders_lock().c_str(), O_RDONLY | O_CLOEXEC);
    const int reader = ::open(host.holders_lock().c_str(), O_RDONLY | O_CLOEXEC);
    const int holder = ::open(host.holders_lock().c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_GE(claimer, 0);
    ASSERT_GE(reader, 0);
    ASSERT_GE(holder, 0);

    ASSERT_TRUE(gpusim::claim_free_byte(claimer, kId));
    EXPECT_FALSE(gpusim::byte_is_held(reader, kId));
    EXPECT_FALSE(gpusim::hold_byte(holder, kId).has_value());
    ::close(claimer);

    ASSERT_TRUE(gpusim::hold_byte(holder, kId).has_value());
    EXPECT_TRUE(gpusim::byte_is_held(reader, kId));
    EXPECT_FALSE(gpusim::claim_free_byte(reader, kId));
    ::close(holder);
    EXPECT_FALSE(gpusim::byte_is_held(reader, kId));
    ::close(reader);
}

}  // namespace

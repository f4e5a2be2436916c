// The event-driven holder set (fanotify on the GPU device nodes, the process
// connector's forks, execs and exits) must equal a full /proc sweep after every kind of
// change: a new holder, the workers it forks after opening the device, a holder that
// exec()s keeping its descriptors, a parent killed under its workers, and everything
// gone. Needs root (CAP_SYS_ADMIN, CAP_NET_ADMIN), as CI runs; skipped, saying why,
// elsewhere.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "host/fd_sweep.hpp"
#include "host/holder_tracker.hpp"
#include "support.hpp"
#include "sweep_support.hpp"

namespace gpukill::testing {
namespace {

// The simulated host's device and sysfs roots over the real /proc.
HostRoots roots_of(const SimulatedHost& host) {
    return {.procfs = "/proc",
            .sysfs = host.env().at("GPUKILL_SYSFS"),
            .devfs = host.env().at("GPUKILL_DEVFS")};
}

bool holds(const SweepResult& sweep, pid_t pid) {
    return std::any_of(sweep.holders.begin(), sweep.holders.end(),
                       [&](const DeviceHolder& holder) { return holder.pid == pid; });
}

TEST(HolderTracker, KeepsWhatAFullSweepFindsThroughForksExecsAndExits) {
    SimulatedHost host;
    const HostRoots roots = roots_of(host);
    Workload before = host.run({"--gpu", "0", "--mem", "1G"});
    std::string why_not;
    auto tracker = HolderTracker::start(roots, 1000, why_not);  // no safety sweep here
    if (!tracker) GTEST_SKIP() << "no event sources: " << why_not;
    const auto expect_same = [&](const char* after) {
        const SweepResult tracked = tracker->refresh();
        EXPECT_EQ(described(tracked), described(sweep_device_holders(roots))) << after;
        return tracked;
    };
    EXPECT_TRUE(holds(expect_same("start"), before.pid()));

    Workload trainer = host.run({"--gpu", "1", "--mem", "2G", "--workers", "3"});
    const SweepResult with_workers = expect_same("a holder forked workers after opening");
    for (pid_t worker : trainer.workers()) EXPECT_TRUE(holds(with_workers, worker)) << worker;

    // A shell opens the device, says so, then exec()s sleep, which keeps the descriptor.
    const std::string node = host.env().at("GPUKILL_DEVFS") + "/nvidia0";
    RunningCommand execer(
        {"/bin/sh", "-c", fmt::format("exec 3<'{}'; echo opened; exec sleep 600", node)});
    ASSERT_EQ(execer.read_line(), "opened");
    EXPECT_TRUE(holds(expect_same("a shell opened the device"), execer.pid()));
    execer.send_signal(SIGKILL);
    execer.wait();
    EXPECT_FALSE(holds(expect_same("the exec'd holder was killed"), execer.pid()));

    trainer.kill_parent();
    const SweepResult orphans = expect_same("the parent killed under its workers");
    EXPECT_FALSE(holds(orphans, trainer.pid()));
    for (pid_t worker : trainer.workers()) EXPECT_TRUE(holds(orphans, worker)) << worker;

    trainer.kill_all();
    before.kill_all();
    EXPECT_TRUE(expect_same("everything gone").holders.empty());
    EXPECT_EQ(tracker->full_sweeps(), 1u) << "every change came from events";
    EXPECT_GT(tracker->processes_rescanned(), 0u);
}

TEST(HolderTracker, TheSafetySweepAgreesWithTheEvents) {
    SimulatedHost host;
    const HostRoots roots = roots_of(host);
    std::string why_not;
    auto tracker = HolderTracker::start(roots, 2, why_not);  // a full sweep every 2nd frame
    if (!tracker) GTEST_SKIP() << "no event sources: " << why_not;
    Workload trainer = host.run({"--gpu", "0", "--mem", "1G", "--workers", "2"});
    tracker->refresh();
    tracker->refresh();  // the check
    EXPECT_EQ(tracker->full_sweeps(), 2u);
    EXPECT_TRUE(tracker->last_check_matched());
}

// Snapshots asked for on demand (the agent answering local lists, several a second) count
// as frames: the safety sweep waits for its time floor, however many frames pass, and a
// new holder is still found from its events meanwhile.
TEST(HolderTracker, TheSafetySweepWaitsForItsTimeFloorWhateverTheFrameCount) {
    SimulatedHost host;
    const HostRoots roots = roots_of(host);
    std::string why_not;
    auto tracker = HolderTracker::start(roots, 2, why_not);  // due every 2nd frame...
    if (!tracker) GTEST_SKIP() << "no event sources: " << why_not;
    tracker->sweep_no_more_often_than(std::chrono::hours(1));  // ...but not within the hour
    for (int frame = 0; frame < 10; ++frame) tracker->refresh();
    EXPECT_EQ(tracker->full_sweeps(), 1u) << "only start()'s sweep";
    Workload trainer = host.run({"--gpu", "0", "--mem", "1G", "--workers", "2"});
    const SweepResult tracked = tracker->refresh();
    EXPECT_EQ(described(tracked), described(sweep_device_holders(roots)));
    EXPECT_TRUE(holds(tracked, trainer.pid()));
    EXPECT_EQ(tracker->full_sweeps(), 1u);

    tracker->sweep_no_more_often_than(std::chrono::steady_clock::duration::zero());
    tracker->refresh();
    EXPECT_EQ(tracker->full_sweeps(), 2u) << "due by frames once the floor is gone";
}

// A busy node overflows the process connector's socket: the kernel drops events and
// says ENOBUFS. The frame is repaired by rescanning the tracked holders and what started
// since, not by sweeping every process, and still finds what a full sweep finds: here a
// trainer whose workers were forked while the socket was full (issue 32).
TEST(HolderTracker, LostProcessEventsAreRepairedWithoutAFullSweep) {
    SimulatedHost host;
    const HostRoots roots = roots_of(host);
    std::string why_not;
    // The smallest buffer the kernel grants: a few events fill it.
    auto tracker = HolderTracker::start(roots, 1000, why_not, 1);
    if (!tracker) GTEST_SKIP() << "no event sources: " << why_not;
    EXPECT_TRUE(tracker->events_filtered());
    ASSERT_EQ(tracker->full_sweeps(), 1u);
    // Far more process events than the buffer holds (each start is a fork, an exec
    // and an exit), then a holder forks workers while it is still full.
    CommandResult flood = run_command({"/bin/sh", "-c",
                                       "i=0; while [ $i -lt 400 ]; do "
                                       "/bin/true; i=$((i+1)); done"});
    ASSERT_EQ(flood.exit_code, 0);
    Workload trainer = host.run({"--gpu", "1", "--mem", "2G", "--workers", "3"});
    const SweepResult repaired = tracker->refresh();
    EXPECT_EQ(tracker->overflows(), 1u);
    EXPECT_EQ(tracker->repairs(), 1u);
    EXPECT_EQ(tracker->full_sweeps(), 1u) << "a loss of process events cost a full sweep";
    EXPECT_FALSE(tracker->swept_in_full());
    EXPECT_EQ(described(repaired), described(sweep_device_holders(roots)));
    EXPECT_TRUE(holds(repaired, trainer.pid()));
    for (pid_t worker : trainer.workers()) EXPECT_TRUE(holds(repaired, worker)) << worker;

    // Back to events (other tests' processes may overflow the tiny buffer again: then
    // this frame is a repair too, and must agree all the same).
    trainer.kill_parent();
    const SweepResult after = tracker->refresh();
    EXPECT_FALSE(holds(after, trainer.pid()));
    for (pid_t worker : trainer.workers()) EXPECT_TRUE(holds(after, worker)) << worker;
    EXPECT_EQ(described(after), described(sweep_device_holders(roots)));
}

// Threads' forks and exits, and event kinds the tracker does not use, are dropped in the
// kernel: threads coming and going cost the socket nothing.
TEST(HolderTracker, ThreadsChurningDoNotFillTheSocket) {
    SimulatedHost host;
    const HostRoots roots = roots_of(host);
    std::string why_not;
    // Room for about 10,000 events: what other tests' processes make meanwhile fits;
    // 40,000 thread events, unfiltered, would not.
    auto tracker = HolderTracker::start(roots, 1000, why_not, 4 << 20);
    if (!tracker) GTEST_SKIP() << "no event sources: " << why_not;
    ASSERT_TRUE(tracker->events_filtered());
    // 20,000 threads started and ended in this process: 40,000 events unfiltered, none
    // kept.
    std::vector<std::thread> threads;
    for (int round = 0; round < 1000; ++round) {
        for (int i = 0; i < 20; ++i) threads.emplace_back([] {});
        for (std::thread& thread : threads) thread.join();
        threads.clear();
    }
    tracker->refresh();
    EXPECT_EQ(tracker->overflows(), 0u);
    EXPECT_EQ(tracker->repairs(), 0u);
    EXPECT_EQ(tracker->full_sweeps(), 1u);
}

// A GPU whose device node appears after the tracker started (hotplug): the frame that
// sees the node sweeps in full (whoever opened it first was not reported), and from then
// on opening it is an event like any other.
TEST(HolderTracker, ADeviceNodeCreatedAfterTheStartIsWatchedFromTheNextFrame) {
    SimulatedHost host;
    const std::string devfs = host.env().at("GPUKILL_DEVFS");
    const HostRoots roots = roots_of(host);
    std::string why_not;
    auto tracker = HolderTracker::start(roots, 1000, why_not);  // no safety sweep here
    if (!tracker) GTEST_SKIP() << "no event sources: " << why_not;
    ASSERT_EQ(tracker->full_sweeps(), 1u);

    const std::string node = devfs + "/nvidia7";
    std::ofstream(node).flush();  // the simulator's nodes are plain files
    const auto opener = [&node] {
        return std::make_unique<RunningCommand>(std::vector<std::string>{
            "/bin/sh", "-c", fmt::format("exec 3<'{}'; echo opened; exec sleep 600", node)});
    };
    const auto first_holder = opener();
    RunningCommand& first = *first_holder;
    ASSERT_EQ(first.read_line(), "opened");
    const SweepResult seen = tracker->refresh();
    EXPECT_TRUE(holds(seen, first.pid())) << "opened before its node was marked";
    EXPECT_EQ(tracker->full_sweeps(), 2u) << "the new node's frame sweeps in full";

    const auto second_holder = opener();
    RunningCommand& second = *second_holder;
    ASSERT_EQ(second.read_line(), "opened");
    const SweepResult tracked = tracker->refresh();
    EXPECT_TRUE(holds(tracked, second.pid())) << "its open is an event now";
    EXPECT_EQ(tracker->full_sweeps(), 2u) << "found by the event, not by a sweep";
    EXPECT_EQ(described(tracked), described(sweep_device_holders(roots)));
}

// /dev changes all the time (ttys, loop devices, shared memory): only entries that are
// GPU nodes or their directories cost a full sweep.
TEST(HolderTracker, EntriesInTheDeviceRootThatAreNotGpuNodesCostNoSweep) {
    SimulatedHost host;
    const std::string devfs = host.env().at("GPUKILL_DEVFS");
    const HostRoots roots = roots_of(host);
    std::string why_not;
    auto tracker = HolderTracker::start(roots, 1000, why_not);  // no safety sweep here
    if (!tracker) GTEST_SKIP() << "no event sources: " << why_not;
    ASSERT_EQ(tracker->full_sweeps(), 1u);

    for (const char* name : {"tty7", "loop3", "nvidia-nvswitch0", "nvidia01", "card0"}) {
        std::ofstream(devfs + "/" + name).flush();
    }
    std::filesystem::create_directory(devfs + "/shm");
    tracker->refresh();
    EXPECT_EQ(tracker->full_sweeps(), 1u) << "none of them is a GPU node";
    EXPECT_EQ(tracker->unrelated_node_events(), 6u);

    std::filesystem::create_directory(devfs + "/accel");  // a directory GPU nodes live in
    tracker->refresh();
    EXPECT_EQ(tracker->full_sweeps(), 2u);
    std::ofstream(devfs + "/accel/accel0").flush();  // and watched from then on
    tracker->refresh();
    EXPECT_EQ(tracker->full_sweeps(), 3u);
    EXPECT_EQ(tracker->unrelated_node_events(), 6u);
}

// Without the privilege the event sources need, no tracker starts and the reason says
// which: discovery then sweeps every frame, as before.
TEST(HolderTracker, WithoutPrivilegeItDoesNotStartAndSaysWhy) {
    SimulatedHost host;
    const HostRoots roots = roots_of(host);
    const auto attempt = [&]() -> int {
        std::string why_not;
        auto tracker = HolderTracker::start(roots, 30, why_not);
        if (tracker) return 1;
        return why_not.find("needs CAP_SYS_ADMIN") != std::string::npos ? 0 : 2;
    };
    if (geteuid() != 0) {
        EXPECT_EQ(attempt(), 0);
        return;
    }
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0) _exit(3);
        _exit(attempt());
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "1: started without privilege; 2: no reason given";
}

}  // namespace
}  // namespace gpukill::testing

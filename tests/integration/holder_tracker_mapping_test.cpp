// The event-driven holder set follows holders by mapping alone: the opener of a node that
// maps it and closes the descriptor is rescanned on its open (fanotify), its workers on
// their fork (the process connector), and each rescan reads the maps as the full sweep
// does. Needs root (CAP_SYS_ADMIN, CAP_NET_ADMIN); skipped, saying why, elsewhere.
#include <gtest/gtest.h>

#include <algorithm>

#include "host/fd_sweep.hpp"
#include "host/holder_tracker.hpp"
#include "support.hpp"
#include "sweep_support.hpp"

namespace gpukill::testing {
namespace {

const DeviceHolder* tracked_holder(const SweepResult& sweep, pid_t pid) {
    auto it = std::find_if(sweep.holders.begin(), sweep.holders.end(),
                           [&](const DeviceHolder& holder) { return holder.pid == pid; });
    return it == sweep.holders.end() ? nullptr : &*it;
}

TEST(HolderTrackerMappings, AMappingOnlyHolderAndItsWorkersAreTracked) {
    SimulatedHost host;
    const HostRoots roots{.procfs = "/proc",
                          .sysfs = host.env().at("GPUKILL_SYSFS"),
                          .devfs = host.env().at("GPUKILL_DEVFS")};
    std::string why_not;
    auto tracker = HolderTracker::start(roots, 1000, why_not);  // no safety sweep here
    if (!tracker) GTEST_SKIP() << "no event sources: " << why_not;

    Workload job = host.run({"--gpu", "1", "--mem", "1G", "--workers", "2", "--mapping-only"});
    const SweepResult tracked = tracker->refresh();
    EXPECT_EQ(described(tracked), described(sweep_device_holders(roots)));
    std::vector<pid_t> everyone{job.pid()};
    everyone.insert(everyone.end(), job.workers().begin(), job.workers().end());
    for (pid_t pid : everyone) {
        const DeviceHolder* holder = tracked_holder(tracked, pid);
        ASSERT_NE(holder, nullptr) << pid << " holds GPU 1 by its mappings";
        for (const DeviceNode& node : holder->nodes) {
            EXPECT_TRUE(node.access.mapping) << node.relative_path;
            EXPECT_FALSE(node.access.descriptor) << node.relative_path;
        }
    }

    job.kill_parent();
    const SweepResult orphans = tracker->refresh();
    EXPECT_EQ(described(orphans), described(sweep_device_holders(roots)));
    EXPECT_EQ(tracked_holder(orphans, job.pid()), nullptr);
    for (pid_t worker : job.workers()) EXPECT_NE(tracked_holder(orphans, worker), nullptr);

    job.kill_all();
    EXPECT_TRUE(tracker->refresh().holders.empty());
    EXPECT_EQ(tracker->full_sweeps(), 1u) << "every change came from events";
}

}  // namespace
}  // namespace gpukill::testing

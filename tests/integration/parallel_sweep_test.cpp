// The device-holder sweep splits /proc over one thread per core on a busy host; it must
// find exactly what one thread finds reading every process in turn: the same holders,
// the same nodes, the same start times.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "host/fd_sweep.hpp"
#include "host/proc_reader.hpp"
#include "support.hpp"
#include "sweep_support.hpp"

namespace gpukill::testing {
namespace {

TEST(ParallelSweep, FindsExactlyWhatOneThreadFinds) {
    SimulatedHost host;
    // Over 512 processes holding the GPUs, so the sweep uses every core here.
    Workload first = host.run({"--gpu", "0", "--mem", "1G", "--workers", "256"});
    Workload second = host.run({"--gpu", "1", "--mem", "1G", "--workers", "256"});
    const HostRoots roots{.procfs = "/proc",
                          .sysfs = host.env().at("GPUKILL_SYSFS"),
                          .devfs = host.env().at("GPUKILL_DEVFS")};
    auto pids = list_pids(roots);
    ASSERT_TRUE(pids.has_value());
    ASSERT_GT(pids->size(), 512u);

    const SweepResult parallel = sweep_device_holders(roots);
    const SweepResult serial = sweep_device_holders_of(roots, *pids);
    EXPECT_EQ(parallel.holders.size(), 514u) << "two parents and their 512 workers";
    EXPECT_EQ(described(parallel), described(serial));
    EXPECT_EQ(parallel.processes_denied, serial.processes_denied);
    EXPECT_FALSE(parallel.error.has_value());
}

}  // namespace
}  // namespace gpukill::testing

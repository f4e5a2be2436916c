// Names no user process may hold a GPU under: a kernel thread's (impossible with an
// executable and open files) and a system daemon's from a file that is not the
// system's; the real daemon at its system path, a real kernel thread and an ordinary
// python3 raise nothing.
#include "detect/borrowed_name_signals.hpp"

#include <gtest/gtest.h>

#include "rogue_test_support.hpp"

namespace gpukill::detect {
namespace {

using rogue_test::find;
using rogue_test::has;
using rogue_test::process;

const RogueConfig kConfig = default_rogue_config();
const std::optional<ExecutableFile> kRootOwned = ExecutableFile{0, false};

TEST(RogueBorrowedNames, AKernelThreadsNameOnAUserProcessIsAFinding) {
    // A copy of a miner named kworker: comm, argv[0] and executable agree, so masquerade
    // sees nothing; only a kernel thread may be called that.
    auto evidence = judge_borrowed_names(
        process("kworker", "/home/u/.cache/kworker", {"/home/u/.cache/kworker"}), kRootOwned,
        kConfig);
    const Evidence* found = find(evidence, Signal::kernel_thread_name);
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(found->weight, 60);
    EXPECT_GE(found->weight, kConfig.report_threshold) << "a finding on its own";
    EXPECT_NE(found->detail.find("process name \"kworker\""), std::string::npos) << found->detail;
    EXPECT_NE(found->detail.find("it runs \"/home/u/.cache/kworker\""), std::string::npos);
}

TEST(RogueBorrowedNames, KernelThreadNamesAsTheyAreWritten) {
    for (const auto& [comm, argv0] :
         std::vector<std::pair<std::string, std::string>>{{"kworker/0:1-eve", "kworker/0:1-events"},
                                                          {"ksoftirqd/3", "ksoftirqd/3"},
                                                          {"python3", "[kthreadd]"},
                                                          {"x", "[migration/2]"},
                                                          {"irq/24-nvme0q0", "irq/24-nvme0q0"}}) {
        EXPECT_TRUE(has(judge_borrowed_names(process(comm, "/tmp/m", {argv0}), kRootOwned, kConfig),
                        Signal::kernel_thread_name))
            << comm << " " << argv0;
    }
    // Without a readable executable the kernel's flag still says it is no kernel thread.
    auto unreadable =
        judge_borrowed_names(process("kswapd0", std::nullopt, {"kswapd0"}), std::nullopt, kConfig);
    ASSERT_TRUE(has(unreadable, Signal::kernel_thread_name));
    EXPECT_NE(find(unreadable, Signal::kernel_thread_name)->detail.find("a user process"),
              std::string::npos);
}

TEST(RogueBorrowedNames, RealKernelThreadsAndOrdinaryProgramsRaiseNothing) {
    ProcessInfo kthread = process("kworker/0:1", std::nullopt, {});
    kthread.kernel_thread = true;
    EXPECT_TRUE(judge_borrowed_names(kthread, std::nullopt, kConfig).empty());
    for (const auto& [comm, exe, argv0] :
         std::vector<std::tuple<std::string, std::string, std::string>>{
             {"python3", "/usr/bin/python3.11", "python3"},
             {"python", "/usr/bin/python3.11", "/usr/bin/python"},
             {"pt_main_thread", "/usr/bin/python3.11", "/opt/conda/bin/python"},
             {"kwrite", "/usr/bin/kwrite", "kwrite"},
             {"migrate_db", "/opt/app/migrate_db", "migrate_db"},
             {"watchdog_client", "/opt/app/watchdog_client", "watchdog_client"},
             {"ksh", "/usr/bin/ksh93", "ksh"}}) {
        EXPECT_TRUE(judge_borrowed_names(process(comm, exe, {argv0}), kRootOwned, kConfig).empty())
            << comm;
    }
}

TEST(RogueBorrowedNames, ADaemonsNameIsJudgedByWhereItsProgramReallyIs) {
    auto copied = judge_borrowed_names(process("sshd", "/tmp/.x/sshd", {"sshd: root@notty"}),
                                       kRootOwned, kConfig);
    const Evidence* found = find(copied, Signal::system_daemon_name);
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(found->weight, 60);
    EXPECT_NE(found->detail.find("system daemon \"sshd\""), std::string::npos) << found->detail;
    EXPECT_NE(found->detail.find("not in a system program directory"), std::string::npos);

    // In /usr/sbin but put there by a user, or writable by one.
    auto user_owned = judge_borrowed_names(process("cron", "/usr/sbin/cron", {"/usr/sbin/cron"}),
                                           ExecutableFile{1001, false}, kConfig);
    ASSERT_TRUE(has(user_owned, Signal::system_daemon_name));
    EXPECT_NE(find(user_owned, Signal::system_daemon_name)->detail.find("owned by uid 1001"),
              std::string::npos);
    EXPECT_TRUE(has(judge_borrowed_names(process("dbus-daemon", "/usr/bin/dbus-daemon", {"x"}),
                                         ExecutableFile{0, true}, kConfig),
                    Signal::system_daemon_name));
    // Named by its executable alone (comm renamed): still the daemon's name.
    EXPECT_TRUE(has(judge_borrowed_names(process("worker", "/home/u/systemd-udevd", {"worker"}),
                                         kRootOwned, kConfig),
                    Signal::system_daemon_name));
}

TEST(RogueBorrowedNames, TheRealDaemonRaisesNothing) {
    // systemd-logind passes DRM devices to compositors: a real one may hold a GPU.
    EXPECT_TRUE(judge_borrowed_names(process("systemd-logind", "/usr/lib/systemd/systemd-logind",
                                             {"/lib/systemd/systemd-logind"}),
                                     kRootOwned, kConfig)
                    .empty());
    EXPECT_TRUE(judge_borrowed_names(process("sshd", "/usr/sbin/sshd", {"sshd: alice [priv]"}),
                                     kRootOwned, kConfig)
                    .empty());
    // Not judged without the executable: the name alone proves nothing.
    EXPECT_TRUE(judge_borrowed_names(process("sshd", std::nullopt, {"sshd"}), std::nullopt, kConfig)
                    .empty());
}

TEST(RogueBorrowedNames, ListsAndWeightsFromTheConfig) {
    RogueConfig config = default_rogue_config();
    config.system_daemon_names = {"mydaemon"};
    config.kernel_thread_names = {};
    EXPECT_TRUE(
        judge_borrowed_names(process("kworker", "/tmp/kworker", {"kworker"}), kRootOwned, config)
            .empty());
    EXPECT_TRUE(has(judge_borrowed_names(process("mydaemon", "/opt/mydaemon", {"mydaemon"}),
                                         kRootOwned, config),
                    Signal::system_daemon_name));
    config.system_program_dirs = {"/opt"};
    EXPECT_TRUE(
        judge_borrowed_names(process("mydaemon", "/opt/mydaemon", {"mydaemon"}), kRootOwned, config)
            .empty());
}

}  // namespace
}  // namespace gpukill::detect

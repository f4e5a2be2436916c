// `gpukill` hands agent, mcp, top and the fleet to gpukill-interfaces by exec
// (src/cli/interface_commands.hpp). What users rely on: the agent systemd started is
// the process that says READY=1 and STOPPING=1 (Type=notify, NotifyAccess=main), and a
// gpukill without gpukill-interfaces beside it still lists and kills, and says in one
// line what is missing for the rest.
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>

#include "agent_support.hpp"
#include "notify_socket.hpp"
#include "support.hpp"

namespace gpukill::testing {
namespace {

TEST(InterfaceHandoff, TheAgentSystemdStartedIsTheProcessThatSaysReadyAndStopping) {
    SimulatedHost host("gpu_count: 1\n");
    const std::string dir = std::filesystem::path(host.root()).parent_path().string();
    NotifySocket notify(dir + "/notify.sock");
    ASSERT_TRUE(notify.ok()) << "cannot bind a unix datagram socket in " << dir;

    RunningAgent agent(host, {"--token-file", write_token_file(dir), "--interval", "1"},
                       {{"NOTIFY_SOCKET", dir + "/notify.sock"}});
    const auto ready = notification_with(notify, "READY=1");
    ASSERT_TRUE(ready) << "no READY=1 on the notify socket";
    EXPECT_EQ(ready->sender, agent.pid()) << "READY=1 came from another process than the one "
                                             "started: systemd would ignore it";
    const auto exe = std::filesystem::read_symlink("/proc/" + std::to_string(agent.pid()) + "/exe");
    EXPECT_EQ(exe.filename(), "gpukill-interfaces");

    agent.process().send_signal(SIGTERM);
    const auto stopping = notification_with(notify, "STOPPING=1");
    ASSERT_TRUE(stopping) << "no STOPPING=1 after SIGTERM";
    EXPECT_EQ(stopping->sender, agent.pid());
    EXPECT_EQ(agent.process().wait(), 0);
}

// Whether every directory from / down to `file`'s own is root's and writable by neither
// group nor others: where a protected program's file must be (reclaim/system_program.hpp).
bool under_root_only_directories(const std::filesystem::path& file) {
    std::filesystem::path dir;
    for (const auto& part : std::filesystem::absolute(file).parent_path()) {
        dir /= part;
        struct stat info {};
        if (::lstat(dir.c_str(), &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != 0 ||
            (info.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
            return false;
        }
    }
    return true;
}

// The agent, as gpukill-interfaces, holds the GPUs it samples through NVML: as an observer
// (NVML, no context) it is never a target of `--gpu`; and it is on the built-in protected
// list as gpukill is, which protects it where it is installed as a system program.
TEST(InterfaceHandoff, TheAgentHoldingTheGpusIsProtectedFromKills) {
    SimulatedHost host("gpu_count: 1\n");
    const std::string dir = std::filesystem::path(host.root()).parent_path().string();
    RunningAgent agent(host, {"--token-file", write_token_file(dir), "--no-guard"});
    Workload trainer = host.run({"--gpu", "0", "--mem", "1G"});

    CommandResult all = host.gpukill({"kill", "--gpu", "0", "--batch", "--json"});
    const nlohmann::json outcome = nlohmann::json::parse(all.out, nullptr, false);
    ASSERT_FALSE(outcome.is_discarded()) << all.out << all.err;
    EXPECT_FALSE(process_alive(trainer.pid())) << all.out;
    EXPECT_TRUE(process_alive(agent.pid())) << all.out;
    for (const nlohmann::json& target : outcome["targets"]) {
        EXPECT_NE(target["pid"], agent.pid()) << all.out;
    }

    // Named with --pid: refused where the program is a system program (a package's
    // /usr/libexec, a build under root-only directories). A build under /tmp or a home is
    // not: anyone who may write there could have put any program under that name.
    const std::filesystem::path interfaces = std::filesystem::path(GPUKILL_BIN).parent_path() /
                                             GPUKILL_INTERFACES_RELATIVE / "gpukill-interfaces";
    if (!under_root_only_directories(interfaces)) {
        agent.process().send_signal(SIGTERM);
        EXPECT_EQ(agent.process().wait(), 0);
        GTEST_SKIP() << interfaces
                     << " is under a directory others may write: not a system "
                        "program, so not protected by name (as designed)";
    }
    CommandResult named = host.gpukill({"kill", "--pid", std::to_string(agent.pid())});
    EXPECT_EQ(named.exit_code, 3) << named.err;
    EXPECT_NE(named.err.find("protected"), std::string::npos) << named.err;
    EXPECT_TRUE(process_alive(agent.pid()));

    agent.process().send_signal(SIGTERM);
    EXPECT_EQ(agent.process().wait(), 0);
}

TEST(InterfaceHandoff, WithoutGpukillInterfacesOtherCommandsWorkAndTheseSayWhatIsMissing) {
    SimulatedHost host("gpu_count: 1\n");
    const std::filesystem::path alone =
        std::filesystem::path(host.root()).parent_path() / "alone" / "bin" / "gpukill";
    std::filesystem::create_directories(alone.parent_path());
    std::filesystem::copy_file(GPUKILL_BIN, alone);
    const std::string missing =
        (alone.parent_path() / GPUKILL_INTERFACES_RELATIVE / "gpukill-interfaces")
            .lexically_normal()
            .string();

    Workload trainer = host.run({"--gpu", "0", "--mem", "1G"});
    CommandResult list = run_command({alone.string(), "list", "--json"}, host.env());
    EXPECT_EQ(list.exit_code, 0) << list.err;
    EXPECT_NE(list.out.find("\"pid\": " + std::to_string(trainer.pid())), std::string::npos)
        << list.out;

    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"agent", "--listen", "127.0.0.1:0"},
          std::vector<std::string>{"mcp"}, std::vector<std::string>{"list", "--hosts", "a,b"}}) {
        std::vector<std::string> argv = {alone.string()};
        argv.insert(argv.end(), args.begin(), args.end());
        CommandResult result = run_command(argv, host.env());
        EXPECT_EQ(result.exit_code, 1) << args[0];
        EXPECT_EQ(result.out, "") << args[0];
        EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
        EXPECT_NE(result.err.find(missing + ": No such file or directory"), std::string::npos)
            << result.err;
    }
}

}  // namespace
}  // namespace gpukill::testing

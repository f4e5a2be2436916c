// The command lines deploy/ ships, run by the real program as their consumer runs them:
// node-problem-detector's rule (its exact arguments, the host's trees moved to where this
// simulated host keeps them) and the systemd unit's ExecStart (its listen address moved
// to a free loopback port, its token file to one written here). A parser that rejected
// an option after the command made the NPD rule exit 3 (Unknown) on every node while the
// deploy-file test, which checked the help table, passed. The DaemonSet's args are run
// the same way in agent_deployment_test.cpp, the Slurm scripts in slurm_epilog_test.cpp.
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "agent_support.hpp"
#include "support.hpp"

namespace gpukill::testing {
namespace {

const std::string kDeploy = GPUKILL_DEPLOY_DIR;

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("missing " + path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// `arg` with a leading host path (an NPD pod's hostPath mount: /host/dev, /host/sys)
// replaced by where this simulated host keeps that tree.
std::string moved(std::string arg, const std::map<std::string, std::string>& trees) {
    for (const auto& [shipped, here] : trees) {
        const std::size_t at = arg.find(shipped);
        if (at != std::string::npos) arg.replace(at, shipped.size(), here);
    }
    return arg;
}

// The simulated host's environment without the variables that name its trees: the
// shipped command line's own options must be what points gpukill at them.
std::map<std::string, std::string> without_tree_variables(const SimulatedHost& host) {
    std::map<std::string, std::string> env = host.env();
    env.erase("GPUKILL_DEVFS");
    env.erase("GPUKILL_SYSFS");
    return env;
}

TEST(DeployCommandLines, NodeProblemDetectorsRuleRunsAsShippedAndSpeaksThePluginProtocol) {
    // As the NPD DaemonSet runs it: root, so every holder is visible.
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to see every holder";
    SimulatedHost host;
    ASSERT_TRUE(host.env().contains("GPUKILL_DEVFS") && host.env().contains("GPUKILL_SYSFS"));
    const std::map<std::string, std::string> trees = {
        {"/host/dev", host.env().at("GPUKILL_DEVFS")},
        {"/host/sys", host.env().at("GPUKILL_SYSFS")}};
    const auto config =
        nlohmann::json::parse(read_file(kDeploy + "/node-problem-detector/gpukill-check.json"));
    const std::size_t max_output = config["pluginConfig"]["max_output_length"].get<std::size_t>();
    ASSERT_FALSE(config["rules"].empty());

    const auto run_rules = [&]() {
        std::vector<CommandResult> results;
        for (const auto& rule : config["rules"]) {
            std::vector<std::string> argv = {GPUKILL_BIN};
            for (const std::string& arg : rule["args"].get<std::vector<std::string>>()) {
                argv.push_back(moved(arg, trees));
            }
            results.push_back(run_command(argv, without_tree_variables(host)));
        }
        return results;
    };

    // The plugin protocol: 0 OK, 1 NonOK, 2 Unknown; the first line is the message.
    for (const CommandResult& clean : run_rules()) {
        EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
        EXPECT_EQ(clean.err, "");
        EXPECT_LE(clean.out.size(), max_output) << clean.out;
        EXPECT_EQ(std::count(clean.out.begin(), clean.out.end(), '\n'), 1) << clean.out;
    }
    host.leak(1, "1G");
    for (const CommandResult& leaked : run_rules()) {
        EXPECT_EQ(leaked.exit_code, 1) << leaked.out << leaked.err;
        EXPECT_NE(leaked.out.find("GPU 1"), std::string::npos) << leaked.out;
        EXPECT_LE(leaked.out.size(), max_output) << leaked.out;
    }
}

// The options after the command are the ones that count: pointed at a device tree
// with no NVIDIA nodes and no driver, the same rule sees no GPU at all.
TEST(DeployCommandLines, TheRulesTreeOptionsAreObeyedNotIgnored) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to see every holder";
    SimulatedHost host;
    const std::string empty = std::filesystem::path(host.root()).parent_path().string() + "/empty";
    std::filesystem::create_directories(empty + "/dev");
    std::filesystem::create_directories(empty + "/sys");
    const auto config =
        nlohmann::json::parse(read_file(kDeploy + "/node-problem-detector/gpukill-check.json"));
    host.leak(1, "1G");
    for (const auto& rule : config["rules"]) {
        std::vector<std::string> argv = {GPUKILL_BIN};
        for (const std::string& arg : rule["args"].get<std::vector<std::string>>()) {
            argv.push_back(
                moved(arg, {{"/host/dev", empty + "/dev"}, {"/host/sys", empty + "/sys"}}));
        }
        // No GPU library either: this host has nothing gpukill can read.
        std::map<std::string, std::string> env = without_tree_variables(host);
        env.erase("GPUKILL_NVML_LIBRARY");
        const CommandResult blind = run_command(argv, env);
        EXPECT_NE(blind.exit_code, 3) << "the shipped arguments were refused: " << blind.err;
        EXPECT_NE(blind.exit_code, 1) << "the leak on the simulated host's GPU 1 was seen through "
                                         "trees the command line did not name: "
                                      << blind.out;
    }
}

TEST(DeployCommandLines, TheSystemdUnitsExecStartStartsAnAgentThatAnswers) {
    SimulatedHost host;
    std::istringstream unit(read_file(kDeploy + "/systemd/gpukill-agent.service"));
    std::vector<std::string> words;
    for (std::string line; std::getline(unit, line);) {
        if (!line.starts_with("ExecStart=")) continue;
        std::istringstream exec(line.substr(std::string("ExecStart=").size()));
        for (std::string word; exec >> word;) words.push_back(word);
    }
    ASSERT_GE(words.size(), 2u);
    ASSERT_EQ(words[0], "/usr/bin/gpukill");
    ASSERT_EQ(words[1], "agent");
    const std::string dir = std::filesystem::path(host.root()).parent_path().string();
    const std::string tokens = write_token_file(dir);
    std::vector<std::string> args;
    bool listen_moved = false, tokens_moved = false;
    for (std::size_t i = 2; i < words.size(); ++i) {
        args.push_back(words[i]);
        if (i + 1 >= words.size()) continue;
        if (words[i] == "--listen") {
            ASSERT_TRUE(words[i + 1].starts_with("127.0.0.1:"))
                << "the unit listens beyond loopback";
            args.push_back("127.0.0.1:0");
            listen_moved = true;
            ++i;
        } else if (words[i] == "--token-file") {
            args.push_back(tokens);
            tokens_moved = true;
            ++i;
        }
    }
    ASSERT_TRUE(listen_moved && tokens_moved) << "the unit's --listen or --token-file changed form";

    RunningAgent agent(host, args);
    httplib::Client client = agent.client();
    auto health = client.Get("/healthz");
    ASSERT_TRUE(health);
    EXPECT_EQ(health->status, 200);
    auto snapshot = client.Get("/v1/snapshot", bearer(kViewerSecret));
    ASSERT_TRUE(snapshot);
    EXPECT_EQ(snapshot->status, 200) << snapshot->body;
    EXPECT_EQ(nlohmann::json::parse(snapshot->body)["gpus"].size(), 2u);
}

}  // namespace
}  // namespace gpukill::testing

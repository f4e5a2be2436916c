// The fleet's agent transport against real `gpukill agent`s: two simulated hosts, each
// with its own agent on a loopback port (plain HTTP is allowed there only), a token file
// made now, and an inventory in Prometheus's file_sd form naming them by address:port.
// What is checked is what happened on each host: who is alive, the memory verified back,
// the audit records naming the token; and that a read-only token and a host whose agent
// is down are reported per host while the rest proceed.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "agent_support.hpp"

namespace gpukill::testing {
namespace {

constexpr std::uint64_t kFleetAgentGiB = 1ULL << 30;

class AgentFleet {
  public:
    AgentFleet() {
        for (int i = 0; i < 2; ++i) {
            hosts_.push_back(std::make_unique<SimulatedHost>());
            const std::string secrets = dir(i) + "/secrets";
            std::filesystem::create_directories(secrets);
            agents_.push_back(std::make_unique<RunningAgent>(
                *hosts_.back(), std::vector<std::string>{"--token-file", write_token_file(secrets),
                                                         "--interval", "0.5", "--no-guard"}));
        }
    }

    SimulatedHost& host(int i) { return *hosts_[i]; }
    std::string name(int i) const { return "127.0.0.1:" + std::to_string(agents_[i]->port()); }
    std::string dir(int i) const {
        return std::filesystem::path(hosts_[i]->root()).parent_path().string();
    }

    // The controller's files: the token (mode 600, as the transport insists) and the
    // inventory, with `extra` targets after the agents.
    std::string client_token(const char* secret) const {
        const std::string path = dir(0) + "/client-token-" + std::string(secret).substr(0, 6);
        std::ofstream(path) << secret << "\n";
        ::chmod(path.c_str(), 0600);
        return path;
    }
    std::string inventory(const std::vector<std::string>& extra = {}) const {
        nlohmann::json targets = {name(0), name(1)};
        for (const std::string& target : extra) targets.push_back(target);
        const std::string path = dir(0) + "/gpu_nodes.json";
        std::ofstream(path) << nlohmann::json::array({{{"targets", targets}}}).dump();
        return path;
    }

    // gpukill on the controller (host 0's environment, which the fleet does not use).
    CommandResult fleet(const std::vector<std::string>& args, const std::string& token,
                        const std::string& hosts_file) {
        std::vector<std::string> argv = args;
        for (const std::string& a :
             {std::string("--hosts-file"), hosts_file, std::string("--transport"),
              std::string("agent"), std::string("--agent-scheme"), std::string("http"),
              std::string("--token-file"), token}) {
            argv.push_back(a);
        }
        return hosts_[0]->gpukill(argv);
    }

  private:
    std::vector<std::unique_ptr<SimulatedHost>> hosts_;
    std::vector<std::unique_ptr<RunningAgent>> agents_;
};

const nlohmann::json& fleet_host(const nlohmann::json& doc, const std::string& name) {
    for (const auto& h : doc["hosts"]) {
        if (h["host"] == name) return h;
    }
    throw std::runtime_error("no host " + name + " in " + doc.dump());
}

TEST(FleetAgent, ListAndKillThroughEachHostsAgentWithTheMemoryVerifiedBack) {
    AgentFleet fleet;
    Workload a = fleet.host(0).run({"--gpu", "0", "--mem", "2G", "--name", "fleetjob"});
    Workload b = fleet.host(1).run({"--gpu", "1", "--mem", "1G", "--name", "fleetjob"});
    Workload other = fleet.host(1).run({"--gpu", "0", "--mem", "1G", "--name", "keepme"});
    const std::string admin = fleet.client_token(kAdminSecret);
    const std::string hosts = fleet.inventory();

    CommandResult list = fleet.fleet({"list", "--json"}, admin, hosts);
    ASSERT_EQ(list.exit_code, 0) << list.err << list.out;
    const nlohmann::json listed = nlohmann::json::parse(list.out);
    EXPECT_EQ(listed["transport"], "agent");
    EXPECT_EQ(listed["summary"]["succeeded"], 2);
    // Each host's own snapshot, as its agent took it.
    EXPECT_EQ(fleet_host(listed, fleet.name(0))["result"]["gpus"][0]["memory_used_bytes"],
              2 * kFleetAgentGiB);
    EXPECT_EQ(fleet_host(listed, fleet.name(1))["result"]["gpus"][0]["memory_used_bytes"],
              kFleetAgentGiB);

    CommandResult kill = fleet.fleet(
        {"kill", "--filter", "^fleetjob$", "--batch", "--force", "--json"}, admin, hosts);
    ASSERT_EQ(kill.exit_code, 0) << kill.err << kill.out;
    const nlohmann::json killed = nlohmann::json::parse(kill.out);
    for (const auto& [i, gpu, bytes] :
         {std::tuple{0, 0, 2 * kFleetAgentGiB}, std::tuple{1, 1, kFleetAgentGiB}}) {
        const nlohmann::json& h = fleet_host(killed, fleet.name(i));
        EXPECT_TRUE(h["acted"].get<bool>());
        ASSERT_EQ(h["result"]["targets"].size(), 1u) << h.dump();
        EXPECT_EQ(h["result"]["targets"][0]["outcome"], "terminated");
        ASSERT_EQ(h["result"]["gpus"].size(), 1u);
        EXPECT_EQ(h["result"]["gpus"][0]["index"], gpu);
        EXPECT_EQ(h["result"]["gpus"][0]["memory_reclaimed_bytes"], bytes);
        EXPECT_TRUE(h["result"]["gpus"][0]["released"].get<bool>());
    }
    EXPECT_FALSE(process_alive(a.pid()));
    EXPECT_FALSE(process_alive(b.pid()));
    EXPECT_TRUE(process_alive(other.pid()));

    // Each host's audit log names the token the controller used and where it came from.
    CommandResult audit = fleet.host(1).gpukill({"audit", "--actions", "--json"});
    ASSERT_EQ(audit.exit_code, 0) << audit.err;
    bool signalled_by_token = false;
    const nlohmann::json records = nlohmann::json::parse(audit.out)["records"];
    for (const auto& record : records) {
        if (record["event"] != "signalled") continue;
        signalled_by_token = record["actor"]["interface"] == "agent" &&
                             record["actor"]["name"] == "admin" &&
                             record["actor"]["remote"].get<std::string>().starts_with("127.0.0.1:");
    }
    EXPECT_TRUE(signalled_by_token) << audit.out;
}

// Every selector that narrows a local kill narrows it on each agent too: a selector
// dropped on the way widens the plan to everything else the request names (here
// `--batch --force` on every GPU holder). Each of these matches nothing on either host.
TEST(FleetAgent, ASelectorThatMatchesNothingHereKillsNothingOnAnyHost) {
    AgentFleet fleet;
    Workload a = fleet.host(0).run({"--gpu", "0", "--mem", "1G", "--name", "fleetjob"});
    Workload b = fleet.host(1).run({"--gpu", "0", "--mem", "1G", "--name", "fleetjob"});
    const std::string admin = fleet.client_token(kAdminSecret);
    const std::string hosts = fleet.inventory();

    for (const std::vector<std::string>& selector :
         {std::vector<std::string>{"--image", "^never-such-image$"},
          std::vector<std::string>{"--not-image", "^never-such-image$"},
          std::vector<std::string>{"--slurm-job", "987654"}}) {
        std::vector<std::string> args{"kill", "--batch", "--force", "--json"};
        args.insert(args.end(), selector.begin(), selector.end());
        CommandResult kill = fleet.fleet(args, admin, hosts);
        const nlohmann::json doc = nlohmann::json::parse(kill.out);
        for (int i = 0; i < 2; ++i) {
            const nlohmann::json& h = fleet_host(doc, fleet.name(i));
            const nlohmann::json targets =
                h.contains("result") ? h["result"].value("targets", nlohmann::json()) : nullptr;
            EXPECT_TRUE(targets.is_array() && targets.empty()) << selector[0] << ": " << h.dump();
        }
        ASSERT_TRUE(process_alive(a.pid())) << selector[0] << " reached host 0's workload";
        ASSERT_TRUE(process_alive(b.pid())) << selector[0] << " reached host 1's workload";
    }
}

TEST(FleetAgent, AReadOnlyTokenAndADownAgentAreReportedPerHostAndNothingIsSignalled) {
    AgentFleet fleet;
    Workload a = fleet.host(0).run({"--gpu", "0", "--mem", "1G", "--name", "fleetjob"});
    const std::string viewer = fleet.client_token(kViewerSecret);
    const std::string down = "127.0.0.1:1";  // nothing listens on port 1 here
    const std::string hosts = fleet.inventory({down});

    CommandResult list = fleet.fleet({"list", "--json"}, viewer, hosts);
    EXPECT_EQ(list.exit_code, 10) << "the worst host: one unreachable\n" << list.err << list.out;
    const nlohmann::json listed = nlohmann::json::parse(list.out);
    EXPECT_EQ(listed["summary"]["succeeded"], 2);
    EXPECT_EQ(listed["summary"]["unreachable"], 1);
    EXPECT_EQ(fleet_host(listed, down)["status"], "unreachable");
    EXPECT_TRUE(fleet_host(listed, fleet.name(0))["ok"].get<bool>());

    CommandResult kill = fleet.fleet(
        {"kill", "--filter", "^fleetjob$", "--batch", "--force", "--json"}, viewer, hosts);
    EXPECT_NE(kill.exit_code, 0) << kill.out;
    const nlohmann::json refused = nlohmann::json::parse(kill.out);
    const nlohmann::json& h = fleet_host(refused, fleet.name(0));
    EXPECT_FALSE(h["ok"].get<bool>()) << h.dump();
    EXPECT_EQ(h["exit_code"], 4) << "a read token may not act: permission";
    EXPECT_TRUE(process_alive(a.pid()));
}

}  // namespace
}  // namespace gpukill::testing

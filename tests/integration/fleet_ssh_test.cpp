// Fleet commands through real OpenSSH servers on loopback ports (and in network
// namespaces), each with its own simulated GPUs and real gpusim workloads: who is alive
// afterwards, what memory came back on each host, what the merged JSON says, and that
// host keys are checked and no secret reaches a child's argv or environment.
#include <dirent.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "fleet_support.hpp"

namespace gpukill::testing {
namespace {

constexpr std::uint64_t GiB = 1ULL << 30;

#define REQUIRE_SSHD()                                                        \
    do {                                                                      \
        if (!can_run_sshd()) GTEST_SKIP() << "needs root and openssh-server"; \
    } while (0)

nlohmann::json parse(const CommandResult& r) {
    try {
        return nlohmann::json::parse(r.out);
    } catch (const std::exception& e) {
        ADD_FAILURE() << "not JSON: " << e.what() << "\nstdout: " << r.out << "\nstderr: " << r.err;
        return nullptr;
    }
}

const nlohmann::json* host_entry(const nlohmann::json& doc, const std::string& name) {
    for (const auto& h : doc["hosts"]) {
        if (h["host"] == name) return &h;
    }
    return nullptr;
}

bool lists_pid(const nlohmann::json& listing, pid_t pid) {
    for (const auto& p : listing["processes"]) {
        if (p["pid"] == pid) return true;
    }
    return false;
}

std::string file_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

TEST(FleetSsh, ListShowsEachHostsOwnProcesses) {
    REQUIRE_SSHD();
    SshFleet fleet({{}, {}});
    Workload w = fleet.host(0).run({"--gpu", "0", "--mem", "2G", "--name", "fleet-list"});
    CommandResult r = fleet.gpukill({"--hosts", "node[1-2]", "list", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    nlohmann::json doc = parse(r);
    ASSERT_EQ(doc["hosts"].size(), 2u);
    EXPECT_EQ(doc["summary"]["succeeded"], 2);
    const nlohmann::json& n1 = *host_entry(doc, "node1");
    const nlohmann::json& n2 = *host_entry(doc, "node2");
    EXPECT_TRUE(n1["ok"].get<bool>());
    EXPECT_EQ(n1["exit_code"], 0);
    EXPECT_TRUE(n1["error"].is_null());
    // `result` is exactly what `gpukill list --json` prints on that host.
    EXPECT_EQ(n1["result"]["schema_version"], 1);
    EXPECT_TRUE(lists_pid(n1["result"], w.pid()));
    EXPECT_FALSE(lists_pid(n2["result"], w.pid()));
    EXPECT_EQ(n1["result"]["gpus"][0]["memory_used_bytes"], 2 * GiB);
    EXPECT_EQ(n2["result"]["gpus"][0]["memory_used_bytes"], 0);
}

TEST(FleetSsh, KillEndsTheWorkloadOnEveryHostAndVerifiesTheMemory) {
    REQUIRE_SSHD();
    SshFleet fleet({{}, {}});
    Workload a = fleet.host(0).run({"--gpu", "0", "--mem", "2G", "--name", "fleetjob"});
    Workload b = fleet.host(1).run({"--gpu", "1", "--mem", "1G", "--name", "fleetjob"});
    Workload other = fleet.host(1).run({"--gpu", "0", "--mem", "1G", "--name", "keepme"});

    // Without --batch: the merged preview, nothing signalled, exit 2.
    CommandResult preview =
        fleet.gpukill({"kill", "--hosts", "node[1-2]", "--filter", "^fleetjob$", "--json"});
    EXPECT_EQ(preview.exit_code, 2) << preview.err << preview.out;
    EXPECT_TRUE(parse(preview)["preview_only"].get<bool>());
    EXPECT_TRUE(process_alive(a.pid()));
    EXPECT_TRUE(process_alive(b.pid()));

    CommandResult r = fleet.gpukill({"kill", "--hosts", "node[1-2]", "--filter", "^fleetjob$",
                                     "--min-memory", "512M", "--batch", "--force", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    nlohmann::json doc = parse(r);
    for (const auto& [name, gpu, bytes] :
         {std::tuple{"node1", 0, 2 * GiB}, std::tuple{"node2", 1, 1 * GiB}}) {
        const nlohmann::json& h = *host_entry(doc, name);
        EXPECT_TRUE(h["acted"].get<bool>()) << name;
        const nlohmann::json& result = h["result"];
        EXPECT_TRUE(result["executed"].get<bool>()) << name;
        ASSERT_EQ(result["targets"].size(), 1u) << name;
        EXPECT_EQ(result["targets"][0]["outcome"], "terminated") << name;
        ASSERT_EQ(result["gpus"].size(), 1u) << name;
        EXPECT_EQ(result["gpus"][0]["index"], gpu);
        EXPECT_EQ(result["gpus"][0]["memory_reclaimed_bytes"], bytes) << name;
        EXPECT_TRUE(result["gpus"][0]["released"].get<bool>()) << name;
    }
    EXPECT_FALSE(process_alive(a.pid()));
    EXPECT_FALSE(process_alive(b.pid()));
    EXPECT_TRUE(process_alive(other.pid()));

    // The remote host's audit log says a fleet controller asked, from where.
    CommandResult audit = fleet.host(0).gpukill({"audit", "--actions", "--json"});
    ASSERT_EQ(audit.exit_code, 0) << audit.err;
    EXPECT_NE(audit.out.find("\"interface\": \"fleet\""), std::string::npos) << audit.out;
    EXPECT_NE(audit.out.find("\"remote\": \"127.0.0.1:"), std::string::npos) << audit.out;
}

TEST(FleetSsh, TextOutputHasSectionsGatherAndASummary) {
    REQUIRE_SSHD();
    SshFleet fleet({{}, {}, {}});
    Workload w = fleet.host(2).run({"--gpu", "0", "--mem", "1G", "--name", "fleetjob"});
    CommandResult r = fleet.gpukill(
        {"kill", "--hosts", "node[1-3]", "--filter", "^fleetjob$", "--batch", "--gather"});
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("----------------\nnode[1-2] (2)\n----------------\nno process matched\n"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("terminated"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("GPU 0: 1.0 GiB back, verified"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("fleet kill: 3 hosts: 3 succeeded, 0 failed, 0 unreachable"),
              std::string::npos)
        << r.out;
}

// Every command's fleet section reads like its text on one host, never the host's raw
// JSON (issue 33: `audit --rogue` over two hosts printed 191 lines of it).
TEST(FleetSsh, EachHostsSectionReadsAsItsOwnText) {
    REQUIRE_SSHD();
    SshFleet fleet({{}, {}});
    Workload w = fleet.host(1).run({"--gpu", "0", "--mem", "1G", "--name", "fleetjob"});
    for (const std::vector<std::string>& command : {std::vector<std::string>{"audit", "--rogue"},
                                                    {"audit", "--actions"},
                                                    {"reset", "--gpu", "0", "--dry-run"}}) {
        std::vector<std::string> args = {"--hosts", "node[1-2]"};
        args.insert(args.end(), command.begin(), command.end());
        CommandResult r = fleet.gpukill(args);
        EXPECT_LT(r.exit_code, 10) << r.err << r.out;
        EXPECT_EQ(r.out.find("\n{"), std::string::npos) << r.out;
        EXPECT_EQ(r.out.find("\"schema_version\""), std::string::npos) << r.out;
        if (command.front() == "audit" && command.back() == "--rogue") {
            for (std::size_t i = 0; i < fleet.size(); ++i) {
                CommandResult local = fleet.host(i).gpukill(command);
                EXPECT_NE(r.out.find(local.out), std::string::npos)
                    << "node" << i + 1 << " alone:\n"
                    << local.out << "\nin the fleet:\n"
                    << r.out;
            }
        }
    }
    CommandResult actions = fleet.gpukill({"--hosts", "node[1-2]", "audit", "--actions"});
    EXPECT_NE(actions.out.find("Actions (last 24 h"), std::string::npos) << actions.out;
    CommandResult reset = fleet.gpukill({"--hosts", "node2", "reset", "--gpu", "0", "--dry-run"});
    EXPECT_NE(reset.out.find("Held by 1 process:"), std::string::npos) << reset.out;
    EXPECT_NE(reset.out.find(std::to_string(w.pid())), std::string::npos) << reset.out;
}

TEST(FleetSsh, UnknownChangedAndDownHostsAreRefusedWhileTheOthersProceed) {
    REQUIRE_SSHD();
    SshFleet fleet({{}, {.known = false}, {.key_changed = true}, {.listening = false}});
    CommandResult r = fleet.gpukill({"--hosts", "node[1-4]", "list", "--json"});
    EXPECT_EQ(r.exit_code, 10) << r.err << r.out;
    nlohmann::json doc = parse(r);
    EXPECT_TRUE((*host_entry(doc, "node1"))["ok"].get<bool>());
    const nlohmann::json& unknown = *host_entry(doc, "node2");
    EXPECT_EQ(unknown["status"], "unreachable");
    EXPECT_NE(unknown["error"].get<std::string>().find("not in known_hosts: refused"),
              std::string::npos)
        << unknown;
    const nlohmann::json& changed = *host_entry(doc, "node3");
    EXPECT_NE(changed["error"].get<std::string>().find("host key of node3 has CHANGED"),
              std::string::npos)
        << changed;
    const nlohmann::json& down = *host_entry(doc, "node4");
    EXPECT_EQ(down["status"], "unreachable");
    EXPECT_NE(down["error"].get<std::string>().find("Connection refused"), std::string::npos)
        << down;
    EXPECT_EQ(doc["summary"]["succeeded"], 1);
    EXPECT_EQ(doc["summary"]["unreachable"], 3);

    // accept-new trusts a host never seen, never a changed key.
    CommandResult trusting =
        fleet.gpukill({"--hosts", "node[2-3]", "--accept-new-host-keys", "list", "--json"});
    nlohmann::json trusted = parse(trusting);
    EXPECT_TRUE((*host_entry(trusted, "node2"))["ok"].get<bool>()) << trusting.out;
    EXPECT_EQ((*host_entry(trusted, "node3"))["status"], "unreachable");
}

TEST(FleetSsh, AMissingRemoteGpukillAndBadNodeSetsAreClearErrors) {
    REQUIRE_SSHD();
    SshFleet fleet(std::vector<SshHostSpec>{SshHostSpec{}});
    std::vector<std::string> argv = fleet.gpukill_argv({"--hosts", "node1", "list", "--json"});
    argv[4] = "/nonexistent/gpukill";  // --remote-gpukill
    CommandResult missing = run_command(argv);
    EXPECT_EQ(missing.exit_code, 10) << missing.out;
    nlohmann::json doc = parse(missing);
    EXPECT_EQ(doc["hosts"][0]["status"], "incompatible");
    EXPECT_NE(
        doc["hosts"][0]["error"].get<std::string>().find("no gpukill at '/nonexistent/gpukill'"),
        std::string::npos);

    CommandResult bad = fleet.gpukill({"--hosts", "node[1-", "list"});
    EXPECT_EQ(bad.exit_code, 3);
    EXPECT_NE(bad.err.find("--hosts: bad node set 'node[1-': expected a number at column 8"),
              std::string::npos)
        << bad.err;
    const std::string hosts_file = fleet.dir() + "/hosts";
    std::ofstream(hosts_file) << "node1\nnode[2-x]\n";
    CommandResult bad_file = fleet.gpukill({"--hosts-file", hosts_file, "list"});
    EXPECT_EQ(bad_file.exit_code, 3);
    EXPECT_NE(bad_file.err.find(hosts_file + ":2: bad node set"), std::string::npos)
        << bad_file.err;
}

// Every process whose parent is `parent`: pid -> (argv, environment), read from /proc.
std::map<pid_t, std::pair<std::string, std::string>> children_of(pid_t parent) {
    std::map<pid_t, std::pair<std::string, std::string>> found;
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
        const std::string name = entry.path().filename();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::istringstream stat(file_text(entry.path() / "stat"));
        std::string text = stat.str();
        const std::size_t close = text.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream rest(text.substr(close + 2));
        char state = 0;
        pid_t ppid = 0;
        rest >> state >> ppid;
        if (ppid != parent) continue;
        found[std::stoi(name)] = {file_text(entry.path() / "cmdline"),
                                  file_text(entry.path() / "environ")};
    }
    return found;
}

TEST(FleetSsh, NoSecretReachesAChildsArgvOrEnvironment) {
    REQUIRE_SSHD();
    SshFleet fleet(std::vector<SshHostSpec>{SshHostSpec{}});
    Workload w =
        fleet.host(0).run({"--gpu", "0", "--mem", "1G", "--ignore-term", "--name", "stubborn"});
    RunningCommand run(fleet.gpukill_argv({"kill", "--hosts", "node1", "--filter", "^stubborn$",
                                           "--batch", "--force", "--timeout-secs", "1", "--json"}));
    // The kill waits a second after SIGTERM: its ssh children are alive meanwhile.
    std::map<pid_t, std::pair<std::string, std::string>> seen;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (process_alive(run.pid()) && std::chrono::steady_clock::now() < deadline) {
        for (auto& [pid, texts] : children_of(run.pid())) seen.emplace(pid, texts);
        if (!process_alive(w.pid())) break;
    }
    EXPECT_EQ(run.wait(), 0);
    ASSERT_FALSE(seen.empty());
    const std::string private_key = file_text(fleet.client_key());
    const std::string key_body = private_key.substr(private_key.find('\n') + 1, 40);
    bool saw_ssh = false;
    for (const auto& [pid, texts] : seen) {
        const auto& [argv, env] = texts;
        EXPECT_EQ(argv.find("PRIVATE KEY"), std::string::npos);
        EXPECT_EQ(argv.find(key_body), std::string::npos);
        EXPECT_EQ(env.find(key_body), std::string::npos);
        if (argv.rfind("ssh", 0) == 0) {
            saw_ssh = true;
            EXPECT_NE(argv.find(std::string("BatchMode=yes\0", 14)), std::string::npos);
            EXPECT_NE(argv.find("StrictHostKeyChecking=yes"), std::string::npos);
        }
    }
    EXPECT_TRUE(saw_ssh);
    EXPECT_FALSE(process_alive(w.pid()));
}

TEST(FleetSsh, HostsInTheirOwnNetworkNamespaces) {
    REQUIRE_SSHD();
    NetnsSet namespaces(2);
    SshFleet fleet({{.netns = namespaces.name(0), .address = namespaces.address(0)},
                    {.netns = namespaces.name(1), .address = namespaces.address(1)}});
    Workload a = fleet.host(0).run({"--gpu", "0", "--mem", "1G", "--name", "nsjob"});
    Workload b = fleet.host(1).run({"--gpu", "1", "--mem", "1G", "--name", "nsjob"});
    CommandResult r =
        fleet.gpukill({"kill", "--hosts", "node[1-2]", "--filter", "^nsjob$", "--batch", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    nlohmann::json doc = parse(r);
    for (const char* name : {"node1", "node2"}) {
        const nlohmann::json& h = *host_entry(doc, name);
        EXPECT_EQ(h["result"]["gpus"][0]["memory_reclaimed_bytes"], GiB) << name;
    }
    EXPECT_FALSE(process_alive(a.pid()));
    EXPECT_FALSE(process_alive(b.pid()));
    // Each namespace's sshd saw its own client address: the veth's host side.
    CommandResult audit = fleet.host(1).gpukill({"audit", "--actions", "--json"});
    EXPECT_NE(audit.out.find("\"remote\": \"10.231.1.1:"), std::string::npos) << audit.out;
}

// The fleet's second phase on one host: a plan id that is not the plan built now
// does nothing (conflict, exit 1); the previewed one acts.
TEST(FleetCli, KillActsOnlyOnThePlanIdItWasShown) {
    SimulatedHost host;
    Workload w = host.run({"--gpu", "0", "--mem", "1G"});
    const std::string pid = std::to_string(w.pid());
    CommandResult stale = host.gpukill(
        {"kill", "--pid", pid, "--plan-id", "0123456789abcdef", "--actor", "fleet", "--json"});
    EXPECT_EQ(stale.exit_code, 1) << stale.out;
    EXPECT_NE(stale.err.find("the plan changed since it was shown"), std::string::npos)
        << stale.err;
    EXPECT_TRUE(process_alive(w.pid()));
    CommandResult plan = host.gpukill({"kill", "--pid", pid, "--dry-run", "--json"});
    ASSERT_EQ(plan.exit_code, 0) << plan.err;
    const std::string id = nlohmann::json::parse(plan.out)["plan_id"];
    CommandResult act = host.gpukill({"kill", "--pid", pid, "--plan-id", id, "--json"});
    EXPECT_EQ(act.exit_code, 0) << act.err << act.out;
    EXPECT_FALSE(process_alive(w.pid()));
    CommandResult bad = host.gpukill({"kill", "--pid", pid, "--actor", "mcp"});
    EXPECT_EQ(bad.exit_code, 3);
}

}  // namespace
}  // namespace gpukill::testing

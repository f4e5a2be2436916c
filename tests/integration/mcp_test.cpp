// gpukill mcp end to end through the official MCP TypeScript SDK client (tests/mcp/
// e2e.mjs, run by Node), over stdio and over Streamable HTTP, against a simulated host:
// real gpusim workloads, two of them moved into container cgroups named as Docker names
// them (docker-<id>.scope), whose images a replayed Docker Engine API answers for
// (docker_api_replay.hpp: container runtimes cannot start containers in this sandbox).
//
// The script checks what the protocol says; this test checks what happened on the host:
// who is alive, that the memory came back, and the audit records' actor.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "docker_api_replay.hpp"
#include "support.hpp"
#include "test_cgroup.hpp"

namespace gpukill::testing {
namespace {

// A container id of 64 hex digits, distinct per test process: tests running at once
// must not share a container's cgroup.
std::string mcp_hex_id(char first) {
    std::string id(64, '0');
    id[0] = first;
    const std::string pid = std::to_string(::getpid());
    for (std::size_t i = 1; i < id.size(); ++i) id[i] = "0123456789abcdef"[(i * 7 + first) % 16];
    for (std::size_t i = 0; i < pid.size(); ++i) id[1 + i] = pid[i];  // decimal digits are hex
    return id;
}

std::string mcp_read_file(const std::string& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void run_e2e(const std::string& transport) {
    const std::string node = GPUKILL_NODE;
    const std::string scripts = GPUKILL_MCP_TEST_DIR;
    if (node.empty() ||
        !std::filesystem::exists(scripts + "/node_modules/@modelcontextprotocol/sdk")) {
        GTEST_SKIP() << "Node or the MCP SDK is missing: run scripts/setup.sh (npm ci --prefix "
                     << scripts << ")";
    }
    const std::string official_id = mcp_hex_id('a');
    const std::string unofficial_id = mcp_hex_id('b');
    TestCgroup official_cgroup("docker-" + official_id + ".scope");
    TestCgroup unofficial_cgroup("docker-" + unofficial_id + ".scope");
    if (!official_cgroup.usable() || !unofficial_cgroup.usable()) {
        GTEST_SKIP() << "no cgroup hierarchy to create a container's cgroup in (needs root)";
    }

    SimulatedHost host("gpu_count: 2\n");
    const std::string dir = std::filesystem::path(host.root()).parent_path().string();
    DockerApiReplay docker(dir + "/docker.sock");
    docker.add_container(official_id, "python:3.11", "trainer");
    docker.add_container(unofficial_id, "ghcr.io/someone/miner:latest", "miner");

    Workload target = host.run({"--gpu", "0", "--mem", "1G", "--name", "mcp-target"});
    Workload stale_first = host.run({"--gpu", "0", "--mem", "256M", "--name", "mcp-stale-a"});
    Workload stale_second = host.run({"--gpu", "0", "--mem", "256M", "--name", "mcp-stale-b"});
    Workload official = host.run({"--gpu", "1", "--mem", "512M", "--name", "mcp-official"});
    Workload unofficial = host.run({"--gpu", "1", "--mem", "512M", "--name", "mcp-miner"});
    Workload plain = host.run({"--gpu", "1", "--mem", "256M", "--name", "mcp-plain"});
    ASSERT_TRUE(official_cgroup.move(official.pid()));
    ASSERT_TRUE(unofficial_cgroup.move(unofficial.pid()));

    const std::string token = "e2e-secret-" + std::string(40, 'k');
    const std::string token_file = dir + "/mcp-tokens";
    std::ofstream(token_file) << "e2e read,act " << token << "\n";
    ::chmod(token_file.c_str(), 0600);

    const nlohmann::json config{
        {"gpukill", GPUKILL_BIN},
        {"kill_pid", target.pid()},
        {"stale_pids", {stale_first.pid(), stale_second.pid()}},
        {"official_pid", official.pid()},
        {"unofficial_pid", unofficial.pid()},
        {"plain_pid", plain.pid()},
        {"token_file", token_file},
        {"token", token},
    };
    std::map<std::string, std::string> env = host.env();
    env["GPUKILL_CONTAINER_SOCKETS"] = docker.path();
    env["MCP_E2E"] = config.dump();
    env["MCP_E2E_TRANSPORT"] = transport;
    const std::uint64_t gpu0_before =
        host.list_json()["gpus"][0]["memory_used_bytes"].get<std::uint64_t>();

    const CommandResult run = run_command({node, scripts + "/e2e.mjs"}, env, 150);
    ASSERT_EQ(run.exit_code, 0) << "stdout:\n" << run.out << "\nstderr:\n" << run.err;
    EXPECT_NE(run.out.find("\"ok\":true"), std::string::npos) << run.out;
    for (const char* step :
         {"plan_kill refused without --allow-actions",
          "PIDs 4294967295, 0, 1 and -1 refused by the plan's gate",
          "plan and execute a kill; memory verified back", "stale plan refused, nothing signalled",
          "not from an official image: planned and killed", "malformed JSON-RPC"}) {
        EXPECT_NE(run.out.find(step), std::string::npos) << step << " not checked:\n" << run.out;
    }

    // What the assistant was told happened, happened.
    EXPECT_FALSE(process_alive(target.pid()));
    EXPECT_FALSE(process_alive(stale_second.pid()));
    EXPECT_TRUE(process_alive(stale_first.pid())) << "the stale plan signalled nothing";
    EXPECT_FALSE(process_alive(unofficial.pid())) << "not from an official image: killed";
    EXPECT_TRUE(process_alive(official.pid())) << "from an official image: left alone";
    EXPECT_TRUE(process_alive(plain.pid())) << "in no container: --not-image never matches it";
    const std::uint64_t gpu0_after =
        host.list_json()["gpus"][0]["memory_used_bytes"].get<std::uint64_t>();
    EXPECT_LE(gpu0_after + (1ULL << 30) + (256ULL << 20), gpu0_before)
        << "the killed workloads' memory came back";
    EXPECT_GT(docker.requests(), 0);

    // The command line's selectors read the same images.
    const std::map<std::string, std::string> sockets = {
        {"GPUKILL_CONTAINER_SOCKETS", docker.path()}};
    const CommandResult listed = host.gpukill({"list", "--json", "--image", "^python:"}, sockets);
    ASSERT_EQ(listed.exit_code, 0) << listed.err;
    const auto doc = nlohmann::json::parse(listed.out);
    ASSERT_EQ(doc["processes"].size(), 1u) << listed.out;
    EXPECT_EQ(doc["processes"][0]["pid"], official.pid());
    EXPECT_EQ(doc["processes"][0]["container"]["image"], "python:3.11");
    const CommandResult details = host.gpukill({"list", "--details", "--wide"}, sockets);
    EXPECT_NE(details.out.find("IMAGE"), std::string::npos) << details.out;
    EXPECT_NE(details.out.find("python:3.11"), std::string::npos) << details.out;
    const CommandResult refused = host.gpukill({"kill", "--not-image", "(", "--batch"}, sockets);
    EXPECT_EQ(refused.exit_code, 3) << refused.err;

    // Every action recorded, naming the MCP client.
    const std::string audit = mcp_read_file(env["GPUKILL_STATE_DIR"] + "/audit.jsonl");
    bool named = false;
    std::istringstream lines(audit);
    for (std::string line; std::getline(lines, line);) {
        const auto record = nlohmann::json::parse(line, nullptr, false);
        if (!record.is_object() || !record.contains("actor")) continue;
        const auto& actor = record["actor"];
        if (actor["interface"] == "mcp" && actor["name"] == "mcp:gpukill-e2e") named = true;
        if (transport == "http" && actor["interface"] == "mcp") {
            EXPECT_TRUE(actor["remote"].is_string() &&
                        actor["remote"].get<std::string>().starts_with("127.0.0.1:"))
                << line;
        }
    }
    EXPECT_TRUE(named) << audit;
}

TEST(McpEndToEnd, OverStdio) {
    run_e2e("stdio");
}
TEST(McpEndToEnd, OverStreamableHttp) {
    run_e2e("http");
}

// Revision 2026-07-28 (stateless) through the SDK's 2.x client, which speaks it: over
// stdio and Streamable HTTP, with no initialize and no session; a kill planned and
// executed that way ends the workload, and the audit record names that client.
TEST(McpEndToEnd, TheStatelessRevisionThroughTheSdks2xClient) {
    const std::string node = GPUKILL_NODE;
    const std::string scripts = GPUKILL_MCP_TEST_DIR;
    if (node.empty() ||
        !std::filesystem::exists(scripts + "/node_modules/@modelcontextprotocol/client")) {
        GTEST_SKIP() << "Node or the MCP SDK 2.x client is missing: run scripts/setup.sh";
    }
    SimulatedHost host;
    const std::string dir = std::filesystem::path(host.root()).parent_path().string();
    Workload target = host.run({"--gpu", "0", "--mem", "1G", "--name", "mcp-stateless"});
    Workload bystander = host.run({"--gpu", "1", "--mem", "512M", "--name", "mcp-bystander"});
    const std::string token = "stateless-secret-" + std::string(40, 's');
    const std::string token_file = dir + "/mcp-tokens";
    std::ofstream(token_file) << "e2e read,act " << token << "\n";
    ::chmod(token_file.c_str(), 0600);
    std::map<std::string, std::string> env = host.env();
    env["MCP_E2E"] = nlohmann::json{
        {"gpukill", GPUKILL_BIN},
        {"kill_pid", target.pid()},
        {"token_file", token_file},
        {"token", token}}.dump();

    const CommandResult run = run_command({node, scripts + "/e2e_stateless.mjs"}, env, 120);
    ASSERT_EQ(run.exit_code, 0) << "stdout:\n" << run.out << "\nstderr:\n" << run.err;
    for (const char* step : {"stdio: 2026-07-28 negotiated", "stdio: plan and execute a kill",
                             "stdio auto: the probe settles on 2026-07-28",
                             "http: 2026-07-28 negotiated", "http: headers must agree"}) {
        EXPECT_NE(run.out.find(step), std::string::npos) << step << " not checked:\n" << run.out;
    }
    EXPECT_FALSE(process_alive(target.pid()));
    EXPECT_TRUE(process_alive(bystander.pid()));
    EXPECT_EQ(host.list_json()["gpus"][0]["memory_used_bytes"], 0) << "its memory came back";
    const std::string audit = mcp_read_file(env["GPUKILL_STATE_DIR"] + "/audit.jsonl");
    EXPECT_NE(audit.find("mcp:gpukill-e2e-stateless"), std::string::npos) << audit;
}

}  // namespace
}  // namespace gpukill::testing

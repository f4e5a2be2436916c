// One request, every door: on one simulated host with containers (a Docker container
// whose image the runtime's API, replayed, names, and two containerd pods whose bundles
// name their images and pods), a Slurm job's cgroup, processes of three users and
// orphaned workers, the
// same kill is planned through the command line, the fleet over SSH (a real sshd), the
// fleet through the agent, the agent's API and MCP over stdio. For each selector alone
// and in pairs and triples, every door must plan exactly the processes the selectors
// name, built into the host on purpose, under the same plan id. A selector that one
// door drops widens its plan and fails here; a selector added to the kill request that
// no case below uses fails the coverage check.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "agent_support.hpp"
#include "cri_node.hpp"
#include "docker_api_replay.hpp"
#include "engine/list_request.hpp"
#include "engine/request_fields.hpp"
#include "fleet_support.hpp"
#include "test_cgroup.hpp"

namespace gpukill::testing {
namespace {

using Pids = std::set<pid_t>;

// A door's answer: the plan's id and the PIDs it targets.
struct Planned {
    std::string plan_id;
    Pids targets;
};

std::string text_of(const nlohmann::json& doc, const char* field) {
    const auto it = doc.find(field);
    return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The PIDs a plan targets: its targets less the ones it refused.
Planned planned_from(const nlohmann::json& plan) {
    Planned out;
    out.plan_id = text_of(plan, "plan_id");
    for (const auto& target : plan["targets"]) {
        if (text_of(target, "outcome") == "refused") continue;
        out.targets.insert(target["pid"].get<pid_t>());
    }
    return out;
}

// `gpukill mcp --allow-actions` over stdio: one JSON-RPC message a line each way.
class McpStdio {
  public:
    McpStdio(const std::map<std::string, std::string>& env) {
        int in[2], out[2];
        if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) {
            throw std::runtime_error("pipe failed");
        }
        pid_ = ::fork();
        if (pid_ == 0) {
            ::dup2(in[0], STDIN_FILENO);
            ::dup2(out[1], STDOUT_FILENO);
            for (const auto& [key, value] : env) ::setenv(key.c_str(), value.c_str(), 1);
            ::execl(GPUKILL_BIN, GPUKILL_BIN, "mcp", "--allow-actions", nullptr);
            ::_exit(127);
        }
        ::close(in[0]);
        ::close(out[1]);
        to_ = in[1];
        from_ = out[0];
        call("initialize", {{"protocolVersion", "2025-06-18"},
                            {"capabilities", nlohmann::json::object()},
                            {"clientInfo", {{"name", "door-parity"}, {"version", "1"}}}});
        send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
    }
    ~McpStdio() {
        ::close(to_);  // end of input: the server exits
        int status = 0;
        if (::waitpid(pid_, &status, 0) != pid_) ::kill(pid_, SIGKILL);
        ::close(from_);
    }
    nlohmann::json call(const std::string& method, const nlohmann::json& params) {
        const int id = ++next_id_;
        send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
        while (true) {
            const nlohmann::json reply = nlohmann::json::parse(read_line());
            if (reply.contains("id") && reply["id"] == id) return reply;
        }
    }

  private:
    void send(const nlohmann::json& message) {
        const std::string line = message.dump() + "\n";
        if (::write(to_, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
            throw std::runtime_error("cannot write to the MCP server");
        }
    }
    std::string read_line() {
        while (buffer_.find('\n') == std::string::npos) {
            pollfd p{from_, POLLIN, 0};
            if (::poll(&p, 1, 60'000) <= 0) throw std::runtime_error("no answer from MCP");
            char chunk[65536];
            const ssize_t n = ::read(from_, chunk, sizeof chunk);
            if (n <= 0) throw std::runtime_error("the MCP server closed its output");
            buffer_.append(chunk, static_cast<std::size_t>(n));
        }
        const std::size_t end = buffer_.find('\n');
        std::string line = buffer_.substr(0, end);
        buffer_.erase(0, end + 1);
        return line;
    }
    pid_t pid_ = -1;
    int to_ = -1;
    int from_ = -1;
    int next_id_ = 0;
    std::string buffer_;
};

struct Case {
    std::vector<std::string> options;  // on the command line
    nlohmann::json body;               // the same request for the agent and MCP
    std::string expected;              // names of the workloads it must plan, sorted
};

std::string hex_id(char fill) {
    return std::string(12, fill) + std::string(52, '0');
}

TEST(DoorParity, EverySelectorPlansTheSameTargetsThroughEveryDoor) {
    if (::geteuid() != 0 || !can_run_sshd()) GTEST_SKIP() << "needs root and sshd";
    const std::string miner_id = hex_id('b');
    // Pods as containerd runs them; containerd 2.x writes the notebook's image as its pod
    // spec names it, "python:3.11", which is docker.io/library/python:3.11.
    const CriContainer trainer_pod{.runtime = "containerd",
                                   .id = cri_container_id('a'),
                                   .image = "nvcr.io/nvidia/pytorch:24.01-py3",
                                   .pod = "trainer-0",
                                   .pod_namespace = "vision",
                                   .pod_uid = cri_pod_uid('a'),
                                   .container = "trainer"};
    const CriContainer notebook_pod{.runtime = "containerd",
                                    .id = cri_container_id('c'),
                                    .image = "python:3.11",
                                    .pod = "notebook-0",
                                    .pod_namespace = "research",
                                    .pod_uid = cri_pod_uid('c'),
                                    .container = "notebook"};
    TestCgroup trainer_cgroup(cri_cgroup(trainer_pod));
    TestCgroup miner_cgroup("docker-" + miner_id + ".scope");
    TestCgroup notebook_cgroup(cri_cgroup(notebook_pod));
    // A job id of this test's own: the cgroup named after it is this test's alone.
    const std::string job = std::to_string(900000 + ::getpid() % 90000);
    TestCgroup job_cgroup("slurm/uid_0/job_" + job + "/step_0");
    ASSERT_TRUE(trainer_cgroup.usable() && job_cgroup.usable());

    char scratch[] = "/tmp/gpukill-doors-XXXXXX";
    ASSERT_NE(::mkdtemp(scratch), nullptr);
    const std::string dir = scratch;
    DockerApiReplay docker(dir + "/docker.sock");
    docker.add_container(miner_id, "evil.example/miner:latest", "miner");
    const std::map<std::string, std::string> host_env = {
        {"GPUKILL_CONTAINER_SOCKETS", docker.path()}};
    SshFleet ssh({SshHostSpec{.extra_env = host_env}});
    SimulatedHost& host = ssh.host(0);
    write_cri_bundle(host.rundir(), trainer_pod);
    write_cri_bundle(host.rundir(), notebook_pod);
    open_host_to_all_users(host);
    std::map<std::string, std::string> env = host.env();
    env.insert(host_env.begin(), host_env.end());

    const auto as_user = [&](uid_t uid) {
        return std::vector<std::string>{"/usr/bin/setpriv", "--reuid=" + std::to_string(uid),
                                        "--regid=" + std::to_string(uid), "--clear-groups"};
    };
    Workload trainer = host.run({"--gpu", "0", "--mem", "6G", "--name", "trainer"});
    Workload miner = host.run_via(as_user(1000), {"--gpu", "1", "--mem", "3G", "--name", "miner"});
    Workload notebook =
        host.run_via(as_user(65534), {"--gpu", "1", "--mem", "1G", "--name", "notebook"});
    Workload slurm_job = host.run({"--gpu", "0", "--mem", "4G", "--name", "slurmjob"});
    Workload workers =
        host.run({"--gpu", "1", "--mem", "2G", "--workers", "2", "--name", "loader"});
    workers.kill_parent();  // two orphaned workers hold GPU 1 by its device file
    Workload plain =
        host.run_via(as_user(1000), {"--gpu", "0", "--mem", "512M", "--name", "plain"});
    ASSERT_TRUE(trainer_cgroup.move(trainer.pid()) && miner_cgroup.move(miner.pid()) &&
                notebook_cgroup.move(notebook.pid()) && job_cgroup.move(slurm_job.pid()));
    const std::map<std::string, Pids> named = {
        {"trainer", {trainer.pid()}},
        {"miner", {miner.pid()}},
        {"notebook", {notebook.pid()}},
        {"slurmjob", {slurm_job.pid()}},
        {"workers", {workers.workers().begin(), workers.workers().end()}},
        {"plain", {plain.pid()}},
    };

    const std::string official = R"(^(nvcr\.io/|docker\.io/library/))";
    const std::vector<Case> cases = {
        {{"--gpu", "1"}, {{"gpu", 1}}, "miner notebook workers"},
        {{"--filter", "^notebook$"}, {{"filter", "^notebook$"}}, "notebook"},
        {{"--user", "1000"}, {{"user", "1000"}}, "miner plain"},
        {{"--container", miner_id.substr(0, 12)}, {{"container", miner_id.substr(0, 12)}}, "miner"},
        {{"--container", trainer_pod.pod_uid}, {{"container", trainer_pod.pod_uid}}, "trainer"},
        {{"--namespace", "research"}, {{"namespace", "research"}}, "notebook"},
        {{"--pod", "trainer-0"}, {{"pod", "trainer-0"}}, "trainer"},
        {{"--slurm-job", job}, {{"slurm_job", job}}, "slurmjob"},
        {{"--image", "^nvcr\\.io/"}, {{"image", "^nvcr\\.io/"}}, "trainer"},
        {{"--not-image", official}, {{"not_image", official}}, "miner"},
        {{"--min-memory", "3G"}, {{"min_memory_bytes", 3ULL << 30}}, "miner slurmjob trainer"},
        {{"--orphaned"}, {{"orphaned", true}}, "workers"},
        {{"--unlisted"}, {{"unlisted", true}}, "workers"},
        {{"--user", "1000", "--image", "miner"}, {{"user", "1000"}, {"image", "miner"}}, "miner"},
        {{"--gpu", "1", "--not-image", official}, {{"gpu", "1"}, {"not_image", official}}, "miner"},
        {{"--slurm-job", job, "--min-memory", "3G"},
         {{"slurm_job", job}, {"min_memory_bytes", 3ULL << 30}},
         "slurmjob"},
        {{"--gpu", "0", "--user", "1000", "--min-memory", "256M"},
         {{"gpu", 0}, {"user", "1000"}, {"min_memory_bytes", 256ULL << 20}},
         "plain"},
        {{"--namespace", "vision", "--image", "^nvcr\\.io/"},
         {{"namespace", "vision"}, {"image", "^nvcr\\.io/"}},
         "trainer"},
        {{"--namespace", "research", "--pod", "trainer-0"},
         {{"namespace", "research"}, {"pod", "trainer-0"}},
         ""},
        {{"--gpu", "1", "--pod", "notebook-0", "--user", "65534"},
         {{"gpu", 1}, {"pod", "notebook-0"}, {"user", "65534"}},
         "notebook"},
        {{"--gpu", "1", "--orphaned", "--image", "."},
         {{"gpu", 1}, {"orphaned", true}, {"image", "."}},
         ""},
    };

    // Every selector of the kill request is in some case: a new one must be added here.
    std::set<std::string> covered;
    for (const Case& c : cases) covered.insert(c.options.begin(), c.options.end());
    for (const auto& field : engine::request_fields<engine::ListRequest>()) {
        if (field.doc.name == "vendor") continue;  // list's own: it narrows GPUs, not targets
        EXPECT_TRUE(covered.contains(std::string(field.doc.option)))
            << field.doc.option << " is a selector no door is tested with";
    }

    const std::string secrets = dir + "/secrets";
    std::filesystem::create_directories(secrets);
    RunningAgent agent(host, {"--token-file", write_token_file(secrets), "--no-guard"}, host_env);
    const std::string client_token = dir + "/client-token";
    std::ofstream(client_token) << kAdminSecret << "\n";
    ::chmod(client_token.c_str(), 0600);
    const std::string agent_host = "127.0.0.1:" + std::to_string(agent.port());
    McpStdio mcp(env);

    for (const Case& c : cases) {
        const std::string label = c.body.dump();
        Pids expected;
        std::istringstream words(c.expected);
        for (std::string word; words >> word;) {
            expected.insert(named.at(word).begin(), named.at(word).end());
        }
        std::vector<std::string> kill = {"kill", "--batch", "--dry-run", "--json"};
        kill.insert(kill.end(), c.options.begin(), c.options.end());
        std::map<std::string, Planned> doors;

        CommandResult local = host.gpukill(kill, host_env);
        ASSERT_EQ(local.exit_code, 0) << label << ": " << local.err;
        doors["command line"] = planned_from(nlohmann::json::parse(local.out));

        std::vector<std::string> over_ssh = kill;
        over_ssh.insert(over_ssh.end(), {"--remote", ssh.name(0)});
        CommandResult fleet_ssh = ssh.gpukill(over_ssh);
        ASSERT_EQ(fleet_ssh.exit_code, 0) << label << ": " << fleet_ssh.err << fleet_ssh.out;
        doors["fleet over SSH"] =
            planned_from(nlohmann::json::parse(fleet_ssh.out)["hosts"][0]["result"]);

        std::vector<std::string> over_agent = kill;
        over_agent.insert(over_agent.end(),
                          {"--remote", agent_host, "--transport", "agent", "--agent-scheme", "http",
                           "--token-file", client_token});
        CommandResult fleet_agent = host.gpukill(over_agent);
        ASSERT_EQ(fleet_agent.exit_code, 0) << label << ": " << fleet_agent.err << fleet_agent.out;
        doors["fleet through the agent"] =
            planned_from(nlohmann::json::parse(fleet_agent.out)["hosts"][0]["result"]);

        nlohmann::json body = c.body;
        body["batch"] = true;
        httplib::Client client = agent.client();
        const auto api =
            client.Post("/v1/kill/plan", {{"Authorization", std::string("Bearer ") + kAdminSecret}},
                        body.dump(), "application/json");
        ASSERT_TRUE(api && api->status == 200) << label << ": " << (api ? api->body : "no answer");
        doors["agent API"] = planned_from(nlohmann::json::parse(api->body));

        const nlohmann::json tool =
            mcp.call("tools/call", {{"name", "plan_kill"}, {"arguments", c.body}});
        ASSERT_TRUE(tool.contains("result") && !tool["result"].value("isError", false))
            << label << ": " << tool.dump();
        doors["MCP"] = planned_from(tool["result"]["structuredContent"]);

        for (const auto& [door, plan] : doors) {
            EXPECT_EQ(plan.targets, expected) << label << " through " << door;
            EXPECT_EQ(plan.plan_id, doors["command line"].plan_id) << label << " through " << door;
        }
    }
    // Only plans were made: every workload lives.
    for (const auto& [name, pids] : named) {
        for (pid_t pid : pids) EXPECT_TRUE(process_alive(pid)) << name;
    }
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpukill::testing

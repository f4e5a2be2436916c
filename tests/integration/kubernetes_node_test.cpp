// Containers as Kubernetes runs them, on a simulated node: real gpusim workloads moved into
// cgroups named as the kubelet's systemd driver names them for containerd
// (cri-containerd-<id>.scope) and CRI-O (crio-<id>.scope), and the bundles those runtimes
// write (cri_node.hpp) under the node's run directory, given as gpukill is given a
// DaemonSet's relocated host mounts (GPUKILL_RUNDIR). No Docker, no CRI socket: images,
// pods and namespaces come from the bundles alone.
//
// The seed's request end to end: an MCP client (the official TypeScript SDK, tests/mcp/
// e2e_kubernetes.mjs) asks to plan killing GPU 1's container processes whose image is not
// from nvcr.io/ or docker.io/library/; the plan names only the unofficial ones; executing
// it ends them and reports the memory back; the official ones live.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "cri_node.hpp"
#include "support.hpp"
#include "test_cgroup.hpp"

namespace gpukill::testing {
namespace {

// A container of the node: its runtime state laid out and its cgroup made; a workload
// moved in by `place`.
class NodeContainer {
  public:
    NodeContainer(const SimulatedHost& host, CriContainer container)
        : container_(std::move(container)), cgroup_(cri_cgroup(container_)) {
        config_ = write_cri_bundle(host.rundir(), container_);
    }
    bool usable() const { return cgroup_.usable(); }
    bool place(const Workload& workload) const { return cgroup_.move(workload.pid()); }
    const CriContainer& spec() const { return container_; }
    const std::string& config_path() const { return config_; }

  private:
    CriContainer container_;
    TestCgroup cgroup_;
    std::string config_;
};

CriContainer pod(const std::string& runtime, char tag, std::string image, std::string pod_name,
                 std::string pod_namespace, std::string container) {
    return CriContainer{.runtime = runtime,
                        .id = cri_container_id(tag),
                        .image = std::move(image),
                        .pod = std::move(pod_name),
                        .pod_namespace = std::move(pod_namespace),
                        .pod_uid = cri_pod_uid(tag),
                        .container = std::move(container)};
}

const nlohmann::json* process_of(const nlohmann::json& listed, pid_t pid) {
    for (const auto& process : listed["processes"]) {
        if (process["pid"] == pid) return &process;
    }
    return nullptr;
}

std::set<pid_t> pids_of(const nlohmann::json& listed) {
    std::set<pid_t> pids;
    for (const auto& process : listed["processes"]) pids.insert(process["pid"].get<pid_t>());
    return pids;
}

std::set<pid_t> planned(const CommandResult& kill) {
    std::set<pid_t> pids;
    const auto plan = nlohmann::json::parse(kill.out);
    for (const auto& target : plan["targets"]) {
        if (target["outcome"] != "refused") pids.insert(target["pid"].get<pid_t>());
    }
    return pids;
}

TEST(KubernetesNode, TheSeedsRequestThroughAnMcpClientOnAContainerdNode) {
    const std::string node = GPUKILL_NODE;
    const std::string scripts = GPUKILL_MCP_TEST_DIR;
    if (node.empty() ||
        !std::filesystem::exists(scripts + "/node_modules/@modelcontextprotocol/sdk")) {
        GTEST_SKIP() << "Node or the MCP SDK is missing: run scripts/setup.sh (npm ci --prefix "
                     << scripts << ")";
    }
    SimulatedHost host("gpu_count: 2\n");
    // containerd 1.7 writes the full reference, 2.x the pod spec's ("python:3.11").
    NodeContainer trainer(host, pod("containerd", 'a', "nvcr.io/nvidia/pytorch:24.01-py3",
                                    "trainer-0", "vision", "trainer"));
    NodeContainer notebook(
        host, pod("containerd", 'b', "python:3.11", "notebook-0", "research", "notebook"));
    NodeContainer miner(host, pod("containerd", 'c', "ghcr.io/someone/miner:latest", "helper-0",
                                  "batch", "helper"));
    NodeContainer tool(
        host, pod("containerd", 'd', "docker.io/someuser/tool:1", "tool-0", "batch", "tool"));
    NodeContainer elsewhere(
        host, pod("containerd", 'e', "quay.io/org/other:2", "other-0", "batch", "other"));
    if (!trainer.usable() || !notebook.usable() || !miner.usable() || !tool.usable() ||
        !elsewhere.usable()) {
        GTEST_SKIP() << "no cgroup hierarchy to create a pod's cgroups in (needs root)";
    }
    Workload trainer_run = host.run({"--gpu", "1", "--mem", "2G", "--name", "trainer"});
    Workload notebook_run = host.run({"--gpu", "1", "--mem", "1G", "--name", "notebook"});
    Workload miner_run = host.run({"--gpu", "1", "--mem", "3G", "--name", "helper"});
    Workload tool_run = host.run({"--gpu", "1", "--mem", "512M", "--name", "tool"});
    Workload other_run = host.run({"--gpu", "0", "--mem", "1G", "--name", "other"});
    Workload plain_run = host.run({"--gpu", "1", "--mem", "256M", "--name", "plain"});
    ASSERT_TRUE(trainer.place(trainer_run) && notebook.place(notebook_run) &&
                miner.place(miner_run) && tool.place(tool_run) && elsewhere.place(other_run));

    nlohmann::json pods = nlohmann::json::object();
    const auto describe = [&](const NodeContainer& c, const Workload& w, const std::string& image) {
        pods[std::to_string(w.pid())] = {{"pod", c.spec().pod},
                                         {"namespace", c.spec().pod_namespace},
                                         {"container", c.spec().container},
                                         {"image", image}};
    };
    describe(trainer, trainer_run, "nvcr.io/nvidia/pytorch:24.01-py3");
    describe(notebook, notebook_run, "docker.io/library/python:3.11");
    describe(miner, miner_run, "ghcr.io/someone/miner:latest");
    describe(tool, tool_run, "docker.io/someuser/tool:1");
    describe(elsewhere, other_run, "quay.io/org/other:2");
    const nlohmann::json config{
        {"gpukill", GPUKILL_BIN},
        {"official_pids", {trainer_run.pid(), notebook_run.pid()}},
        {"unofficial_pids", {miner_run.pid(), tool_run.pid()}},
        {"unofficial_bytes", (3ULL << 30) + (512ULL << 20)},
        {"other_gpu_pid", other_run.pid()},
        {"plain_pid", plain_run.pid()},
        {"pods", pods},
    };
    std::map<std::string, std::string> env = host.env();
    env["MCP_E2E"] = config.dump();
    const std::uint64_t gpu1_before =
        host.list_json()["gpus"][1]["memory_used_bytes"].get<std::uint64_t>();

    const CommandResult run = run_command({node, scripts + "/e2e_kubernetes.mjs"}, env, 150);
    ASSERT_EQ(run.exit_code, 0) << "stdout:\n" << run.out << "\nstderr:\n" << run.err;
    EXPECT_NE(run.out.find("\"ok\":true"), std::string::npos) << run.out;

    // What the assistant was told happened, happened.
    EXPECT_FALSE(process_alive(miner_run.pid())) << "ghcr.io: not official, killed";
    EXPECT_FALSE(process_alive(tool_run.pid())) << "docker.io but not library/: killed";
    EXPECT_TRUE(process_alive(trainer_run.pid())) << "nvcr.io: official";
    EXPECT_TRUE(process_alive(notebook_run.pid())) << "python:3.11 is docker.io/library/";
    EXPECT_TRUE(process_alive(other_run.pid())) << "on GPU 0: not asked about";
    EXPECT_TRUE(process_alive(plain_run.pid())) << "in no container: --not-image never matches";
    const std::uint64_t gpu1_after =
        host.list_json()["gpus"][1]["memory_used_bytes"].get<std::uint64_t>();
    EXPECT_LE(gpu1_after + (3ULL << 30) + (512ULL << 20), gpu1_before)
        << "the killed workloads' memory came back";
}

// CRI-O's layout, read through a relocated run directory (--rundir, as a DaemonSet's host
// mount gives it): `list` shows each process's image, pod and namespace in JSON and the
// table; --namespace and --pod select exactly, on list and kill alike.
TEST(KubernetesNode, OnACrioNodeListShowsPodsAndTheSelectorsAreExact) {
    SimulatedHost host("gpu_count: 2\n");
    // Not GPUKILL_RUNDIR: the flag, pointing where the DaemonSet mounts the host's /run.
    const std::string relocated = std::filesystem::path(host.root()).parent_path() / "host-run";
    CriContainer serve =
        pod("cri-o", 'f', "registry.example:5000/ml/serve:3", "serve-7d9f", "inference", "server");
    CriContainer batch =
        pod("cri-o", '1', "docker.io/library/python:3.12", "etl-0", "batch", "etl");
    CriContainer twin = pod("cri-o", '2', "ghcr.io/o/etl:1", "etl-0", "inference", "etl");
    for (const CriContainer* c : {&serve, &batch, &twin}) write_cri_bundle(relocated, *c);
    TestCgroup serve_cgroup(cri_cgroup(serve));
    TestCgroup batch_cgroup(cri_cgroup(batch));
    TestCgroup twin_cgroup(cri_cgroup(twin));
    if (!serve_cgroup.usable() || !batch_cgroup.usable() || !twin_cgroup.usable()) {
        GTEST_SKIP() << "no cgroup hierarchy to create a pod's cgroups in (needs root)";
    }
    Workload serve_run = host.run({"--gpu", "0", "--mem", "1G", "--name", "server"});
    Workload batch_run = host.run({"--gpu", "1", "--mem", "512M", "--name", "etl"});
    Workload twin_run = host.run({"--gpu", "1", "--mem", "256M", "--name", "etl"});
    ASSERT_TRUE(serve_cgroup.move(serve_run.pid()) && batch_cgroup.move(batch_run.pid()) &&
                twin_cgroup.move(twin_run.pid()));

    const std::vector<std::string> rundir = {"--rundir", relocated};
    const auto gpukill = [&](std::vector<std::string> args) {
        args.insert(args.end(), rundir.begin(), rundir.end());
        return host.gpukill(args);
    };
    const CommandResult list = gpukill({"list", "--json"});
    ASSERT_EQ(list.exit_code, 0) << list.err;
    const auto listed = nlohmann::json::parse(list.out);
    const nlohmann::json* server = process_of(listed, serve_run.pid());
    ASSERT_NE(server, nullptr) << list.out;
    const auto& c = (*server)["container"];
    EXPECT_EQ(c["runtime"], "cri-o");
    EXPECT_EQ(c["id"], serve.id);
    EXPECT_EQ(c["image"], "registry.example:5000/ml/serve:3");
    EXPECT_EQ(c["pod_name"], "serve-7d9f");
    EXPECT_EQ(c["pod_namespace"], "inference");
    EXPECT_EQ(c["pod_uid"], serve.pod_uid);
    EXPECT_EQ(c["container_name"], "server");

    // Without the relocated root nothing is known: the image unknown, never guessed.
    const auto unseen = host.list_json();
    const nlohmann::json* blind = process_of(unseen, serve_run.pid());
    ASSERT_NE(blind, nullptr);
    EXPECT_TRUE((*blind)["container"]["image"].is_null()) << blind->dump();
    EXPECT_TRUE((*blind)["container"]["pod_name"].is_null());

    const CommandResult table = gpukill({"list", "--details", "--wide"});
    ASSERT_EQ(table.exit_code, 0) << table.err;
    EXPECT_NE(table.out.find("NAMESPACE"), std::string::npos) << table.out;
    EXPECT_NE(table.out.find("POD"), std::string::npos) << table.out;
    EXPECT_NE(table.out.find("serve-7d9f"), std::string::npos) << table.out;

    const auto selected = [&](std::vector<std::string> selectors) {
        std::vector<std::string> args = {"list", "--json"};
        args.insert(args.end(), selectors.begin(), selectors.end());
        const CommandResult r = gpukill(args);
        EXPECT_EQ(r.exit_code, 0) << r.err;
        return pids_of(nlohmann::json::parse(r.out));
    };
    EXPECT_EQ(selected({"--namespace", "inference"}),
              (std::set<pid_t>{serve_run.pid(), twin_run.pid()}));
    EXPECT_EQ(selected({"--pod", "etl-0"}), (std::set<pid_t>{batch_run.pid(), twin_run.pid()}));
    EXPECT_EQ(selected({"--pod", "etl-0", "--namespace", "batch"}),
              (std::set<pid_t>{batch_run.pid()}));
    EXPECT_EQ(selected({"--namespace", "infer"}), std::set<pid_t>{}) << "exact, not a prefix";
    const CommandResult kill = gpukill({"kill", "--batch", "--dry-run", "--json", "--gpu", "1",
                                        "--not-image", "^(nvcr\\.io|docker\\.io/library)/"});
    ASSERT_EQ(kill.exit_code, 0) << kill.err << kill.out;
    EXPECT_EQ(planned(kill), (std::set<pid_t>{twin_run.pid()}));
    const CommandResult typo = gpukill({"kill", "--batch", "--namespace", "Inference"});
    EXPECT_EQ(typo.exit_code, 3) << typo.err;
    EXPECT_NE(typo.err.find("invalid --namespace"), std::string::npos) << typo.err;
    for (pid_t pid : {serve_run.pid(), batch_run.pid(), twin_run.pid()}) {
        EXPECT_TRUE(process_alive(pid)) << "only plans were made";
    }
}

// guard's `projects:` count a pod's processes in the project of the namespace its bundle
// names (no log directory here): the decision says which fact put it there.
TEST(KubernetesNode, GuardProjectsCountAPodByTheNamespaceItsBundleNames) {
    SimulatedHost host;
    NodeContainer first(host, pod("containerd", '5', "ghcr.io/o/etl:1", "etl-0", "batch", "etl"));
    NodeContainer second(host, pod("containerd", '6', "ghcr.io/o/etl:1", "etl-1", "batch", "etl"));
    NodeContainer other(host, pod("containerd", '7', "ghcr.io/o/web:1", "web-0", "serving", "web"));
    if (!first.usable() || !second.usable() || !other.usable()) {
        GTEST_SKIP() << "no cgroup hierarchy to create a pod's cgroups in (needs root)";
    }
    Workload older = host.run({"--gpu", "0", "--mem", "1G", "--name", "etl"});
    Workload newer = host.run({"--gpu", "1", "--mem", "1G", "--name", "etl"});
    Workload web = host.run({"--gpu", "1", "--mem", "2G", "--name", "web"});
    ASSERT_TRUE(first.place(older) && second.place(newer) && other.place(web));
    const std::string policy = std::filesystem::path(host.root()).parent_path() / "guard.yaml";
    std::ofstream(policy) << "mode: enforce\nprojects:\n  batch-jobs:\n"
                             "    kubernetes_namespaces: [batch]\n    memory_limit: 1536M\n"
                             "    action: terminate\n    grace_period: 0s\n";
    const CommandResult r = host.gpukill({"guard", "test", "--policy", policy, "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto doc = nlohmann::json::parse(r.out);
    std::map<pid_t, std::string> why;
    for (const auto& d : doc["decisions"]) {
        if (d["rule"] == "projects.batch-jobs.memory_limit") {
            why[d["pid"].get<pid_t>()] = d["why"].get<std::string>();
        }
    }
    // 2 GiB in namespace batch against 1.5 GiB: the newest covers the excess.
    ASSERT_EQ(why.size(), 1u) << r.out;
    ASSERT_TRUE(why.contains(newer.pid())) << r.out;
    EXPECT_NE(why[newer.pid()].find("Kubernetes namespace batch"), std::string::npos)
        << why[newer.pid()];
    for (pid_t pid : {older.pid(), newer.pid(), web.pid()}) EXPECT_TRUE(process_alive(pid));
}

// A bundle that is not the runtime's plain record is refused and its container's image
// stays unknown: `--not-image` never matches it, so it is never killed on a guess; the
// snapshot says why. Here, one whose config.json is a link out of containerd's directory
// (to a file claiming an official image) and one cut short.
TEST(KubernetesNode, ARefusedBundleLeavesTheImageUnknownAndTheProcessUntouched) {
    SimulatedHost host("gpu_count: 2\n");
    NodeContainer linked(
        host, pod("containerd", '3', "ghcr.io/x/linked:1", "linked-0", "batch", "linked"));
    NodeContainer cut(host, pod("containerd", '4', "ghcr.io/x/cut:1", "cut-0", "batch", "cut"));
    if (!linked.usable() || !cut.usable()) {
        GTEST_SKIP() << "no cgroup hierarchy to create a pod's cgroups in (needs root)";
    }
    // The link: to a config elsewhere on the host that names an official image.
    CriContainer decoy = linked.spec();
    decoy.image = "nvcr.io/nvidia/pytorch:24.01-py3";
    const std::string outside =
        std::filesystem::path(host.root()).parent_path() / "elsewhere/config.json";
    std::filesystem::create_directories(std::filesystem::path(outside).parent_path());
    std::ofstream(outside) << cri_config(decoy).dump();
    std::filesystem::remove(linked.config_path());
    std::filesystem::create_symlink(outside, linked.config_path());
    std::filesystem::resize_file(cut.config_path(), 60);

    Workload linked_run = host.run({"--gpu", "1", "--mem", "512M", "--name", "linked"});
    Workload cut_run = host.run({"--gpu", "1", "--mem", "512M", "--name", "cut"});
    ASSERT_TRUE(linked.place(linked_run) && cut.place(cut_run));

    const auto listed = host.list_json();
    for (pid_t pid : {linked_run.pid(), cut_run.pid()}) {
        const nlohmann::json* process = process_of(listed, pid);
        ASSERT_NE(process, nullptr);
        EXPECT_TRUE((*process)["container"]["image"].is_null()) << process->dump();
        EXPECT_TRUE((*process)["container"]["pod_name"].is_null()) << process->dump();
    }
    const std::string warnings = listed["warnings"].dump();
    EXPECT_NE(warnings.find("symbolic link leads out"), std::string::npos) << warnings;
    EXPECT_NE(warnings.find("not a complete OCI config"), std::string::npos) << warnings;

    for (const char* official : {"^(nvcr\\.io|docker\\.io/library)/", "^nvcr\\.io/"}) {
        const CommandResult kill = host.gpukill(
            {"kill", "--batch", "--json", "--gpu", "1", "--not-image", official, "--force"});
        EXPECT_EQ(planned(kill), std::set<pid_t>{}) << kill.out;
    }
    EXPECT_TRUE(process_alive(linked_run.pid()));
    EXPECT_TRUE(process_alive(cut_run.pid()));
}

}  // namespace
}  // namespace gpukill::testing

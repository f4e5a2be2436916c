// A GPU holder in a Kubernetes pod, as the kubelet lays one out: a real gpusim workload
// moved into a kubepods/.../pod<UID>/<container id> cgroup, and the pod's log directory
// NAMESPACE_PODNAME_UID (what a DaemonSet sees of /var/log/pods). The agent's per-process
// series and `list --json` name the pod and its namespace. On a containerd node the
// bundle names them, and dcgm-exporter's families carry them as its --kubernetes mode
// does.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <sstream>
#include <thread>

#include "agent_support.hpp"
#include "cri_node.hpp"
#include "test_cgroup.hpp"

namespace gpukill::testing {
namespace {

constexpr const char* kPodUid = "5e6f7a8b-1111-2222-3333-444455556666";
constexpr const char* kContainerId =
    "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00";

// The agent's text once it holds `wanted`, or the last text after 15 s.
std::string metrics_with(RunningAgent& agent, const std::vector<std::string>& wanted) {
    std::string metrics;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    while (std::chrono::steady_clock::now() < deadline) {
        auto answer = agent.client().Get("/metrics");
        if (answer && answer->status == 200) {
            metrics = answer->body;
            if (std::all_of(wanted.begin(), wanted.end(), [&](const std::string& part) {
                    return metrics.find(part) != std::string::npos;
                })) {
                break;
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));  // polled, bounded
    }
    return metrics;
}

TEST(AgentPodLabels, AHolderInAPodIsLabelledWithItsPodAndNamespace) {
    SimulatedHost host;
    TestCgroup pod(std::string("kubepods/besteffort/pod") + kPodUid + "/" + kContainerId);
    if (!pod.usable()) GTEST_SKIP() << "no cgroup hierarchy to create a pod's cgroup in (root)";
    const std::filesystem::path logs =
        std::filesystem::path(host.root()).parent_path() / "pod-logs";
    std::filesystem::create_directories(logs /
                                        (std::string("vision-train_trainer-7f9c_") + kPodUid));
    std::filesystem::create_directories(logs / "kube-system_coredns-5d78_aaaa");

    Workload trainer = host.run({"--gpu", "0", "--mem", "1G", "--name", "trainer"});
    ASSERT_TRUE(pod.move(trainer.pid()));

    const CommandResult list =
        host.gpukill({"list", "--json"}, {{"GPUKILL_POD_LOG_DIR", logs.string()}});
    ASSERT_EQ(list.exit_code, 0) << list.err;
    const nlohmann::json listed = nlohmann::json::parse(list.out);
    bool found = false;
    for (const auto& process : listed["processes"]) {
        if (process["pid"] != trainer.pid()) continue;
        found = true;
        EXPECT_EQ(process["container"]["pod_uid"], kPodUid) << process.dump();
        EXPECT_EQ(process["container"]["pod_namespace"], "vision-train");
        EXPECT_EQ(process["container"]["pod_name"], "trainer-7f9c");
        EXPECT_EQ(process["container"]["id"], kContainerId);
    }
    EXPECT_TRUE(found) << listed.dump();

    RunningAgent agent(host, {"--interval", "0.1", "--no-guard"},
                       {{"GPUKILL_POD_LOG_DIR", logs.string()}});
    const std::string series =
        std::string("gpukill_process_gpu_memory_bytes{gpu=\"0\",UUID=\"") +
        listed["gpus"][0]["uuid"].get<std::string>() + "\",pid=\"" + std::to_string(trainer.pid()) +
        "\",user=\"" + current_user_name() +
        "\",name=\"trainer\",pod=\"trainer-7f9c\",namespace=\"vision-train\","
        "container=\"\",container_id=\"" +
        kContainerId + "\",pod_uid=\"" + kPodUid + "\"," + hostname_label() + "} 1073741824\n";
    const std::string metrics = metrics_with(agent, {series});
    EXPECT_NE(metrics.find(series), std::string::npos) << series << "\nnot in\n" << metrics;
}

TEST(AgentPodLabels, OnAContainerdNodeTheGpusSeriesNameThePodUsingIt) {
    SimulatedHost host;
    const CriContainer trainer{.runtime = "containerd",
                               .id = cri_container_id('t'),
                               .image = "nvcr.io/nvidia/pytorch:24.01-py3",
                               .pod = "trainer-7f9c",
                               .pod_namespace = "vision-train",
                               .pod_uid = cri_pod_uid('t'),
                               .container = "trainer"};
    write_cri_bundle(host.rundir(), trainer);
    TestCgroup cgroup(cri_cgroup(trainer));
    if (!cgroup.usable()) GTEST_SKIP() << "no cgroup hierarchy to create a pod's cgroup in (root)";
    Workload run = host.run({"--gpu", "1", "--mem", "1G", "--name", "trainer"});
    ASSERT_TRUE(cgroup.move(run.pid()));

    RunningAgent agent(host, {"--interval", "0.1", "--no-guard", "--dcgm-names"});
    const std::string pod_labels =
        "pod=\"trainer-7f9c\",namespace=\"vision-train\",container=\"trainer\"";
    const std::string fb_used = "DCGM_FI_DEV_FB_USED{gpu=\"1\",";
    const std::string process = "gpukill_process_gpu_memory_bytes{gpu=\"1\",";
    const std::string metrics = metrics_with(agent, {pod_labels + ",container_id"});
    bool gpu1_named = false;
    bool process_named = false;
    std::istringstream lines(metrics);
    for (std::string line; std::getline(lines, line);) {
        if (line.starts_with(fb_used)) {
            gpu1_named |= line.find(pod_labels) != std::string::npos;
        }
        if (line.starts_with(process) &&
            line.find("pid=\"" + std::to_string(run.pid()) + "\"") != std::string::npos) {
            process_named =
                line.find(pod_labels + ",container_id=\"" + trainer.id + "\",pod_uid=\"" +
                          trainer.pod_uid + "\"") != std::string::npos;
        }
        // GPU 0: no pod uses it, no pod labels.
        if (line.starts_with("DCGM_FI_DEV_FB_USED{gpu=\"0\",")) {
            EXPECT_EQ(line.find("pod="), std::string::npos) << line;
        }
    }
    EXPECT_TRUE(gpu1_named) << metrics;
    EXPECT_TRUE(process_named) << metrics;
}

}  // namespace
}  // namespace gpukill::testing

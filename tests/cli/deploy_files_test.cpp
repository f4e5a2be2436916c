// deploy/ holds what operators install; each file is read here as its consumer reads it
// (Kubernetes YAML, node-problem-detector JSON, a systemd unit), and every gpukill
// command line in them must be one gpukill accepts: a renamed option would otherwise
// break a fleet's DaemonSet at the next upgrade, silently.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/command_id.hpp"
#include "cli/command_line.hpp"

namespace gpukill::cli {
namespace {

const std::string kDeploy = GPUKILL_DEPLOY_DIR;

std::string read_deploy_file(const std::string& relative) {
    std::ifstream in(kDeploy + "/" + relative);
    if (!in) throw std::runtime_error("missing " + relative);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// "" when `gpukill ARGS...` parses; else the parser's complaint. The real parser, the
// one run_cli uses (not the help's option table): an option the table lists but the
// command's parser refuses after the command once broke the node-problem-detector rule.
// $(VAR) references (the kubelet expands them) are given a plausible value first.
std::string gpukill_arguments_problem(std::vector<std::string> args) {
    if (args.empty()) return "no command";
    for (std::string& arg : args) {
        for (std::size_t at; (at = arg.find("$(")) != std::string::npos;) {
            const std::size_t end = arg.find(')', at);
            if (end == std::string::npos) break;
            arg.replace(at, end - at + 1, "10.0.0.7");
        }
    }
    CommandLine command_line;
    std::vector<const char*> argv = {"gpukill"};
    for (const std::string& arg : args) argv.push_back(arg.c_str());
    try {
        command_line.app->parse(static_cast<int>(argv.size()), argv.data());
    } catch (const CLI::ParseError& e) {
        return fmt::format("{} ({})", e.what(), e.get_name());
    }
    return "";
}

// The parser refuses what run_cli would refuse (so the checks above can fail).
TEST(DeployFiles, TheRealParserRefusesAnOptionTheCommandDoesNotTake) {
    EXPECT_EQ(gpukill_arguments_problem({"check", "--devfs=/host/dev", "--sysfs=/host/sys"}), "");
    EXPECT_NE(gpukill_arguments_problem({"check", "--no-such-option"}), "");
    EXPECT_NE(gpukill_arguments_problem({"agent", "--listen"}), "");  // its value is missing
}

std::vector<YAML::Node> kubernetes_documents() {
    return YAML::LoadAll(read_deploy_file("kubernetes/gpukill-agent.yaml"));
}

YAML::Node document_of_kind(const std::string& kind) {
    for (const YAML::Node& document : kubernetes_documents()) {
        if (document["kind"].as<std::string>() == kind) return document;
    }
    throw std::runtime_error("no " + kind);
}

TEST(DeployKubernetes, TheDaemonSetSeesTheHostsProcessesAndDevices) {
    const YAML::Node spec = document_of_kind("DaemonSet")["spec"]["template"]["spec"];
    EXPECT_TRUE(spec["hostPID"].as<bool>());  // the driver reports host PIDs only
    EXPECT_TRUE(spec["nodeSelector"].IsMap() && spec["nodeSelector"].size() > 0);
    EXPECT_TRUE(spec["tolerations"].IsSequence() && spec["tolerations"].size() > 0);

    std::map<std::string, std::string> host_paths;  // volume name -> host path
    for (const YAML::Node& volume : spec["volumes"]) {
        if (volume["hostPath"]) {
            host_paths[volume["name"].as<std::string>()] =
                volume["hostPath"]["path"].as<std::string>();
        }
    }
    const YAML::Node container = spec["containers"][0];
    std::map<std::string, std::string> mounted;  // host path -> where the agent sees it
    for (const YAML::Node& mount : container["volumeMounts"]) {
        const auto found = host_paths.find(mount["name"].as<std::string>());
        if (found != host_paths.end())
            mounted[found->second] = mount["mountPath"].as<std::string>();
    }
    ASSERT_TRUE(mounted.contains("/dev"));
    ASSERT_TRUE(mounted.contains("/sys"));

    const auto args = container["args"].as<std::vector<std::string>>();
    EXPECT_EQ(gpukill_arguments_problem(args), "");
    // The agent is told where the host's trees are mounted.
    EXPECT_NE(std::find(args.begin(), args.end(), "--devfs=" + mounted["/dev"]), args.end());
    EXPECT_NE(std::find(args.begin(), args.end(), "--sysfs=" + mounted["/sys"]), args.end());
    // The runtimes' bundles (images and pods) are mounted below --rundir as they lie below
    // the host's /run: containerd's and CRI-O's directories (host/cri_bundle.hpp).
    const auto rundir = std::find_if(args.begin(), args.end(), [](const std::string& arg) {
        return arg.starts_with("--rundir=");
    });
    ASSERT_NE(rundir, args.end());
    const std::string run = rundir->substr(9);
    for (const char* bundles : {"/run/containerd/io.containerd.runtime.v2.task",
                                "/run/containers/storage/overlay-containers"}) {
        ASSERT_TRUE(mounted.contains(bundles)) << bundles;
        EXPECT_EQ(mounted[bundles], run + std::string(bundles).substr(4)) << bundles;
    }

    EXPECT_EQ(container["livenessProbe"]["httpGet"]["path"].as<std::string>(), "/healthz");
    EXPECT_EQ(container["readinessProbe"]["httpGet"]["path"].as<std::string>(), "/readyz");
    EXPECT_TRUE(container["resources"]["requests"]["cpu"]);
    EXPECT_TRUE(container["resources"]["requests"]["memory"]);
    const auto added =
        container["securityContext"]["capabilities"]["add"].as<std::vector<std::string>>();
    // NET_ADMIN and hostNetwork: the process connector, half of the holder tracker, needs
    // the capability and answers only in the host's network namespace
    // (tests/integration/agent_deployment_test.cpp runs the agent with these).
    for (const char* capability : {"KILL", "SYS_PTRACE", "SYS_ADMIN", "NET_ADMIN"}) {
        EXPECT_NE(std::find(added.begin(), added.end(), capability), added.end()) << capability;
    }
    EXPECT_TRUE(spec["hostNetwork"].as<bool>());
    EXPECT_FALSE(container["securityContext"]["privileged"] &&
                 container["securityContext"]["privileged"].as<bool>());
}

TEST(DeployKubernetes, TheNamespaceAdmitsThePodAndTheMonitorIsFoundBySecretsItNames) {
    // hostPID, hostNetwork, hostPath and capabilities: Pod Security's privileged level.
    const YAML::Node labels = document_of_kind("Namespace")["metadata"]["labels"];
    EXPECT_EQ(labels["pod-security.kubernetes.io/enforce"].as<std::string>(), "privileged");
    const YAML::Node daemonset = document_of_kind("DaemonSet");
    EXPECT_EQ(daemonset["metadata"]["namespace"].as<std::string>(),
              document_of_kind("Namespace")["metadata"]["name"].as<std::string>());
    // kube-prometheus-stack selects ServiceMonitors by its release label.
    const YAML::Node monitor = document_of_kind("ServiceMonitor");
    EXPECT_TRUE(monitor["metadata"]["labels"]["release"]);
    // The Secrets it reads are the ones docs/DEPLOY.md says how to make, with those keys.
    const std::string guide = [] {
        std::ifstream in(std::string(GPUKILL_DEPLOY_DIR) + "/../docs/DEPLOY.md");
        std::stringstream text;
        text << in.rdbuf();
        return text.str();
    }();
    const YAML::Node endpoint = monitor["spec"]["endpoints"][0];
    const YAML::Node token = endpoint["authorization"]["credentials"];
    const YAML::Node ca = endpoint["tlsConfig"]["ca"]["secret"];
    for (const YAML::Node& secret : {token, ca}) {
        const std::string name = secret["name"].as<std::string>();
        const std::string key = secret["key"].as<std::string>();
        EXPECT_NE(guide.find("create secret generic " + name), std::string::npos) << name;
        EXPECT_NE(guide.find(key + "="), std::string::npos) << name << " " << key;
    }
}

TEST(DeployKubernetes, TheServiceAndServiceMonitorReachTheAgentsPort) {
    const YAML::Node daemonset = document_of_kind("DaemonSet");
    const std::string port_name =
        daemonset["spec"]["template"]["spec"]["containers"][0]["ports"][0]["name"]
            .as<std::string>();
    const YAML::Node service = document_of_kind("Service");
    EXPECT_EQ(service["spec"]["ports"][0]["targetPort"].as<std::string>(), port_name);
    const YAML::Node monitor = document_of_kind("ServiceMonitor");
    const YAML::Node endpoint = monitor["spec"]["endpoints"][0];
    EXPECT_EQ(endpoint["port"].as<std::string>(),
              service["spec"]["ports"][0]["name"].as<std::string>());
    EXPECT_EQ(endpoint["path"].as<std::string>(), "/metrics");
    // Same labels select the pods, the service and the monitor.
    const auto labels = daemonset["spec"]["template"]["metadata"]["labels"];
    for (auto it = service["spec"]["selector"].begin(); it != service["spec"]["selector"].end();
         ++it) {
        EXPECT_EQ(labels[it->first.as<std::string>()].as<std::string>(),
                  it->second.as<std::string>());
    }
}

TEST(DeployNodeProblemDetector, RunsGpukillCheckAsACustomPlugin) {
    const auto config =
        nlohmann::json::parse(read_deploy_file("node-problem-detector/gpukill-check.json"));
    EXPECT_EQ(config["plugin"], "custom");
    ASSERT_FALSE(config["rules"].empty());
    for (const auto& rule : config["rules"]) {
        EXPECT_TRUE(rule["path"].get<std::string>().ends_with("/gpukill"));
        const auto args = rule["args"].get<std::vector<std::string>>();
        ASSERT_FALSE(args.empty());
        EXPECT_EQ(args[0], "check");  // exit 0/1/2 is the plugin protocol's OK/NonOK/Unknown
        EXPECT_EQ(gpukill_arguments_problem(args), "");
        EXPECT_EQ(rule["condition"], config["conditions"][0]["type"]);
    }
}

TEST(DeploySystemd, TheUnitStartsTheAgentWithOptionsItHas) {
    std::istringstream unit(read_deploy_file("systemd/gpukill-agent.service"));
    std::map<std::string, std::string> service;
    for (std::string line; std::getline(unit, line);) {
        const auto equals = line.find('=');
        if (line.empty() || line[0] == '#' || line[0] == '[' || equals == std::string::npos)
            continue;
        service[line.substr(0, equals)] = line.substr(equals + 1);
    }
    EXPECT_EQ(service["Type"], "notify");  // the agent calls sd_notify
    EXPECT_FALSE(service["WatchdogSec"].empty());
    std::istringstream exec(service["ExecStart"]);
    std::vector<std::string> words;
    for (std::string word; exec >> word;) words.push_back(word);
    ASSERT_GE(words.size(), 2u);
    EXPECT_EQ(words[0], "/usr/bin/gpukill");
    words.erase(words.begin());
    EXPECT_EQ(words[0], "agent");
    EXPECT_EQ(gpukill_arguments_problem(words), "");
    for (const char* capability :
         {"CAP_KILL", "CAP_SYS_PTRACE", "CAP_SYS_ADMIN", "CAP_NET_ADMIN"}) {
        EXPECT_NE(service["CapabilityBoundingSet"].find(capability), std::string::npos);
        EXPECT_NE(service["AmbientCapabilities"].find(capability), std::string::npos);
    }
    EXPECT_EQ(service["ProtectSystem"], "strict");
    EXPECT_EQ(service["StateDirectory"], "gpukill");
}

}  // namespace
}  // namespace gpukill::cli

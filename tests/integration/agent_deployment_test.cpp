// The agent as deploy/ ships it, run the way its real peers run it.
//
// Kubernetes: the DaemonSet's own args, with $(POD_IP) expanded as the kubelet expands the
// downward API and each mountPath mapped to this test's directories; the token file and
// TLS key in Secret volumes laid out as the kubelet lays them (links into a `..data`
// directory); the agent in a network namespace of its own, which stands for the node's
// network the pod shares (hostNetwork); probed from outside as the kubelet probes (HTTPS,
// no certificate check, Host: the pod's IP and port) and scraped as Prometheus does.
//
// Capabilities: the sets the DaemonSet and the systemd unit grant, applied with setpriv
// to a root process (what a container runtime and systemd do): with them the event-driven
// holder tracker runs, and the agent says so in its log and its metrics.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "agent_support.hpp"
#include "kubelet_secret_volume.hpp"

namespace gpukill::testing {
namespace {

const std::string kDeploy = GPUKILL_DEPLOY_DIR;
constexpr const char* kIp = "/usr/sbin/ip";
constexpr const char* kSetpriv = "/usr/bin/setpriv";
const std::string kMetricsSecret = "prometheus-secret-0123456789abcdefghijkl";

std::string scratch(const SimulatedHost& host, const std::string& name) {
    const std::string dir = std::filesystem::path(host.root()).parent_path().string() + "/" + name;
    std::filesystem::create_directories(dir);
    return dir;
}

YAML::Node daemonset_pod() {
    for (const YAML::Node& document :
         YAML::LoadAllFromFile(kDeploy + "/kubernetes/gpukill-agent.yaml")) {
        if (document["kind"].as<std::string>() == "DaemonSet")
            return document["spec"]["template"]["spec"];
    }
    throw std::runtime_error("no DaemonSet in deploy/kubernetes/gpukill-agent.yaml");
}

// A network namespace joined to this one by a veth pair: the "node" at `address()`.
class NodeNetwork {
  public:
    NodeNetwork() {
        const std::string tag = std::to_string(::getpid() % 100000);
        name_ = "gkdep" + tag;
        outside_ = "gkdep" + tag + "h";
        const std::string subnet = "10.233." + std::to_string(::getpid() % 250) + ".";
        address_ = subnet + "2";
        for (const std::vector<std::string>& step : std::vector<std::vector<std::string>>{
                 {kIp, "netns", "add", name_},
                 {kIp, "link", "add", outside_, "type", "veth", "peer", "name", "eth0", "netns",
                  name_},
                 {kIp, "addr", "add", subnet + "1/24", "dev", outside_},
                 {kIp, "link", "set", outside_, "up"},
                 {kIp, "-n", name_, "addr", "add", address_ + "/24", "dev", "eth0"},
                 {kIp, "-n", name_, "link", "set", "eth0", "up"},
                 {kIp, "-n", name_, "link", "set", "lo", "up"}}) {
            CommandResult r = run_command(step);
            if (r.exit_code != 0) {
                remove();
                throw std::runtime_error(step[1] + " " + step[2] + ": " + r.err);
            }
        }
    }
    ~NodeNetwork() { remove(); }
    NodeNetwork(const NodeNetwork&) = delete;
    NodeNetwork& operator=(const NodeNetwork&) = delete;
    const std::string& name() const { return name_; }
    const std::string& address() const { return address_; }

  private:
    void remove() { run_command({kIp, "netns", "del", name_}); }  // takes the veth pair along
    std::string name_, outside_, address_;
};

// The container's args as the kubelet hands them over: $(VAR) from the container's env
// (a fieldRef status.podIP is `pod_ip`), then each path under a mountPath moved to where
// this test keeps that volume.
std::vector<std::string> kubelet_args(const YAML::Node& pod, const std::string& pod_ip,
                                      const std::map<std::string, std::string>& volume_dirs) {
    const YAML::Node container = pod["containers"][0];
    std::map<std::string, std::string> env;
    for (const YAML::Node& variable : container["env"]) {
        const std::string name = variable["name"].as<std::string>();
        if (variable["value"]) {
            env[name] = variable["value"].as<std::string>();
        } else if (variable["valueFrom"]["fieldRef"]["fieldPath"].as<std::string>() ==
                   "status.podIP") {
            env[name] = pod_ip;
        }
    }
    std::map<std::string, std::string> mounts;  // mountPath -> test directory
    for (const YAML::Node& mount : container["volumeMounts"]) {
        const std::string volume = mount["name"].as<std::string>();
        if (volume_dirs.contains(volume)) {
            mounts[mount["mountPath"].as<std::string>()] = volume_dirs.at(volume);
        }
    }
    std::vector<std::string> args;
    for (std::string arg : container["args"].as<std::vector<std::string>>()) {
        for (const auto& [name, value] : env) {
            for (std::size_t at; (at = arg.find("$(" + name + ")")) != std::string::npos;) {
                arg.replace(at, name.size() + 3, value);
            }
        }
        const std::size_t equals = arg.find('=');
        if (equals != std::string::npos) {
            const std::string value = arg.substr(equals + 1);
            for (const auto& [path, dir] : mounts) {
                if (value == path || value.starts_with(path + "/")) {
                    arg = arg.substr(0, equals + 1) + dir + value.substr(path.size());
                }
            }
        }
        args.push_back(arg);
    }
    return args;
}

// A certificate for the agent signed by a CA made now, naming the pod's address and the
// Service's name (the ServiceMonitor's serverName).
void make_certificates(const std::string& dir, const std::string& address) {
    const auto openssl = [&](const std::string& args) {
        CommandResult r =
            run_command({"/bin/sh", "-c", "cd '" + dir + "' && " GPUKILL_OPENSSL_BIN " " + args});
        if (r.exit_code != 0) throw std::runtime_error("openssl " + args + ": " + r.err);
    };
    openssl("req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=ca -keyout ca.key -out ca.crt");
    openssl("req -newkey rsa:2048 -nodes -subj /CN=agent -keyout tls.key -out tls.csr");
    std::ofstream(dir + "/san.ext")
        << "subjectAltName=IP:" << address << ",DNS:gpukill-agent.gpukill.svc\n";
    openssl(
        "x509 -req -in tls.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 "
        "-extfile san.ext -out tls.crt");
}

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

bool can_make_namespaces() {
    return ::geteuid() == 0 && ::access(kIp, X_OK) == 0;
}

TEST(AgentDeployment, TheDaemonSetServesTheKubeletsProbesAndPrometheusWithMountedSecrets) {
    if (!can_make_namespaces()) GTEST_SKIP() << "needs root and " << kIp;
    SimulatedHost host;
    Workload job = host.run({"--gpu", "0", "--mem", "1G", "--name", "trainer"});
    NodeNetwork node;

    // The Secrets as `kubectl create secret` makes them and the kubelet mounts them
    // (defaultMode 0400; the tls volume's items).
    const std::string pki = scratch(host, "pki");
    make_certificates(pki, node.address());
    const std::string tokens_text = "# name scopes secret\nprometheus read " + kMetricsSecret +
                                    "\nfleet read,act " + std::string(kAdminSecret) + "\n";
    KubeletSecretVolume tokens(scratch(host, "volumes") + "/tokens", {{"tokens", tokens_text}},
                               0400);
    KubeletSecretVolume tls(
        scratch(host, "volumes") + "/tls",
        {{"tls.crt", read_file(pki + "/tls.crt")}, {"tls.key", read_file(pki + "/tls.key")}}, 0400);
    ASSERT_TRUE(std::filesystem::is_symlink(tls.path("tls.key")));

    const YAML::Node pod = daemonset_pod();
    ASSERT_TRUE(pod["hostNetwork"].as<bool>());  // the node's network: this namespace
    const std::map<std::string, std::string> volumes{{"tokens", tokens.dir().string()},
                                                     {"tls", tls.dir().string()},
                                                     {"host-dev", host.env().at("GPUKILL_DEVFS")},
                                                     {"host-sys", host.env().at("GPUKILL_SYSFS")},
                                                     {"state", scratch(host, "state")}};
    const std::vector<std::string> args = kubelet_args(pod, node.address(), volumes);
    ASSERT_EQ(args.at(0), "agent");

    std::vector<std::string> argv = {
        "/bin/sh", "-c", "exec \"$0\" \"$@\" 2>&1", kIp, "netns", "exec", node.name(), GPUKILL_BIN};
    argv.insert(argv.end(), args.begin(), args.end());
    RunningCommand agent(argv, host.env());
    std::string log;
    std::optional<std::string> line;
    while ((line = agent.read_line(30)) && line->find("listening on") == std::string::npos) {
        log += *line + "\n";
    }
    ASSERT_TRUE(line) << "the agent did not start with the DaemonSet's args and the mounted "
                         "Secrets:\n"
                      << log;
    const std::string origin = node.address() + ":9402";
    EXPECT_NE(line->find("https://" + origin), std::string::npos) << *line;

    httplib::SSLClient client(node.address(), 9402);
    client.enable_server_certificate_verification(false);  // as the kubelet's probes
    client.set_connection_timeout(5);
    client.set_read_timeout(30);
    const auto get = [&](const std::string& path, const std::string& host_header,
                         const char* secret = nullptr) {
        httplib::Headers headers{{"Host", host_header}};
        if (secret != nullptr) headers.emplace("Authorization", std::string("Bearer ") + secret);
        auto answer = client.Get(path, headers);
        return answer ? answer->status : -1;
    };
    // The kubelet's probes name the pod's IP; health answers any Host (it says nothing).
    EXPECT_EQ(get("/healthz", origin), 200);
    EXPECT_EQ(get("/readyz", origin), 200);
    EXPECT_EQ(get("/healthz", "gpu-node-7.cluster.local"), 200);
    EXPECT_EQ(get("/readyz", "gpu-node-7"), 200);
    // Prometheus (a ServiceMonitor scrapes the endpoint's address) with the read token.
    EXPECT_EQ(get("/metrics", origin), 401);
    EXPECT_EQ(get("/metrics", origin, kMetricsSecret.c_str()), 200);
    EXPECT_EQ(get("/metrics", "evil.example:9402", kMetricsSecret.c_str()), 403)
        << "a foreign Host is still refused where something is revealed";
    EXPECT_EQ(get("/v1/version", origin, kAdminSecret), 200);

    // Verified against the CA, as the ServiceMonitor's tlsConfig does.
    httplib::SSLClient verified(node.address(), 9402);
    verified.set_ca_cert_path((pki + "/ca.crt").c_str());
    verified.enable_server_certificate_verification(true);
    auto scraped = verified.Get("/metrics", {{"Authorization", "Bearer " + kMetricsSecret}});
    ASSERT_TRUE(scraped) << httplib::to_string(scraped.error());
    EXPECT_NE(scraped->body.find("gpukill_process_gpu_memory_bytes{gpu=\"0\""), std::string::npos)
        << scraped->body;
}

// The capability names of a systemd unit's CapabilityBoundingSet or a container's
// securityContext add list, as setpriv spells them ("+sys_admin").
std::string setpriv_caps(const std::vector<std::string>& names) {
    std::string caps = "-all";
    for (std::string name : names) {
        if (name.starts_with("CAP_")) name = name.substr(4);
        std::transform(name.begin(), name.end(), name.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        caps += ",+" + name;
    }
    return caps;
}

std::vector<std::string> unit_capabilities() {
    std::istringstream unit(read_file(kDeploy + "/systemd/gpukill-agent.service"));
    for (std::string line; std::getline(unit, line);) {
        if (!line.starts_with("CapabilityBoundingSet=")) continue;
        std::istringstream words(line.substr(line.find('=') + 1));
        std::vector<std::string> caps;
        for (std::string word; words >> word;) caps.push_back(word);
        return caps;
    }
    return {};
}

// The agent as root with only `caps` (bounding set; nothing inheritable or ambient): its
// log line about holder tracking.
std::string tracking_line(const SimulatedHost& host, const std::string& caps) {
    const std::string state = scratch(host, "state-" + std::to_string(caps.size()));
    RunningCommand agent({"/bin/sh", "-c", "exec \"$0\" \"$@\" 2>&1", kSetpriv, "--inh-caps=-all",
                          "--ambient-caps=-all", "--bounding-set=" + caps, GPUKILL_BIN, "agent",
                          "--listen", "127.0.0.1:0", "--interval", "0.2", "--state-dir", state},
                         host.env());
    std::string seen;
    while (auto line = agent.read_line(30)) {
        if (line->find("holder tracking:") != std::string::npos) return *line;
        seen += *line + "\n";
    }
    return "no holder tracking line in:\n" + seen;
}

TEST(AgentDeployment, TheShippedCapabilitiesLetTheHolderTrackerRun) {
    if (::geteuid() != 0 || ::access(kSetpriv, X_OK) != 0) GTEST_SKIP() << "needs root, setpriv";
    SimulatedHost host;
    const YAML::Node pod = daemonset_pod();
    // The process connector answers only in the host's network namespace.
    EXPECT_TRUE(pod["hostNetwork"].as<bool>());
    const auto added = pod["containers"][0]["securityContext"]["capabilities"]["add"]
                           .as<std::vector<std::string>>();
    const std::string daemonset = tracking_line(host, setpriv_caps(added));
    EXPECT_NE(daemonset.find("holder tracking: on"), std::string::npos) << daemonset;
    const std::string unit = tracking_line(host, setpriv_caps(unit_capabilities()));
    EXPECT_NE(unit.find("holder tracking: on"), std::string::npos) << unit;

    // Without CAP_NET_ADMIN (the DaemonSet and unit before): off, and the log says why.
    std::vector<std::string> without = added;
    std::erase(without, "NET_ADMIN");
    const std::string off = tracking_line(host, setpriv_caps(without));
    EXPECT_NE(off.find("holder tracking: off"), std::string::npos) << off;
    EXPECT_NE(off.find("CAP_NET_ADMIN"), std::string::npos) << off;
}

}  // namespace
}  // namespace gpukill::testing

#include "fleet_support.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace gpukill::testing {
namespace {

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

void must(const CommandResult& r, const std::string& what) {
    if (r.exit_code != 0) throw std::runtime_error(what + " failed: " + r.err + r.out);
}

unsigned free_port() {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
        close(fd);
        throw std::runtime_error("no free port");
    }
    close(fd);
    return ntohs(addr.sin_port);
}

// Bounded: until a TCP connection to address:port succeeds, or 10 s.
bool wait_for_listener(const std::string& address, unsigned port) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_port = htons(static_cast<uint16_t>(port));
        inet_pton(AF_INET, address.c_str(), &addr.sin_addr);
        const bool up = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
        close(fd);
        if (up) return true;
        usleep(10000);  // a bounded readiness poll, not a guess at how long sshd takes
    }
    return false;
}

pid_t spawn(const std::vector<std::string>& argv, const std::string& log) {
    pid_t pid = fork();
    if (pid == 0) {
        int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(fd, 1);
        dup2(fd, 2);
        std::vector<char*> c;
        for (const std::string& a : argv) c.push_back(const_cast<char*>(a.c_str()));
        c.push_back(nullptr);
        execv(c[0], c.data());
        _exit(127);
    }
    return pid;
}

std::string keygen(const std::string& path) {
    must(run_command({"/usr/bin/ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "fleet-test",
                      "-f", path}),
         "ssh-keygen");
    return read_text(path + ".pub");
}

// "ssh-ed25519 AAAA... comment" -> "ssh-ed25519 AAAA...".
std::string key_text(const std::string& pub) {
    std::istringstream in(pub);
    std::string type, blob;
    in >> type >> blob;
    return type + " " + blob;
}

}  // namespace

bool can_run_sshd() {
    return geteuid() == 0 && access("/usr/sbin/sshd", X_OK) == 0 &&
           access("/usr/bin/ssh-keygen", X_OK) == 0 && access("/usr/bin/ssh", X_OK) == 0;
}

SshFleet::SshFleet(const std::vector<SshHostSpec>& specs) {
    try {
        start(specs);
    } catch (...) {
        stop();
        throw;
    }
}

void SshFleet::start(const std::vector<SshHostSpec>& specs) {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpukill-ssh-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = pattern;
    std::filesystem::create_directories("/run/sshd");  // sshd's privilege separation dir
    const std::string host_pub = keygen(dir_ + "/host_key");
    const std::string other_pub = keygen(dir_ + "/other_host_key");
    client_key_ = dir_ + "/client_key";
    const std::string client_pub = keygen(client_key_);
    std::ofstream(dir_ + "/authorized_keys") << client_pub;

    std::ostringstream known, config;
    for (std::size_t i = 0; i < specs.size(); ++i) {
        Host host;
        host.spec = specs[i];
        host.sim = std::make_unique<SimulatedHost>();
        host.port = specs[i].netns.empty() ? free_port() : 22;
        const std::string n = std::to_string(i + 1);
        if (specs[i].listening) {
            std::ostringstream sshd;
            sshd << "Port " << host.port << "\nListenAddress " << specs[i].address << "\n"
                 << "HostKey " << dir_ << (specs[i].key_changed ? "/other_host_key" : "/host_key")
                 << "\nAuthorizedKeysFile " << dir_ << "/authorized_keys\n"
                 << "PidFile " << dir_ << "/sshd" << n << ".pid\n"
                 << "StrictModes no\nUsePAM no\nPermitRootLogin prohibit-password\n"
                 << "PasswordAuthentication no\nKbdInteractiveAuthentication no\n"
                 << "LogLevel ERROR\nMaxStartups 200\nMaxSessions 100\nSetEnv";
            for (const auto& [key, value] : host.sim->env()) sshd << " " << key << "=" << value;
            for (const auto& [key, value] : specs[i].extra_env) {
                sshd << " " << key << "=" << value;
            }
            sshd << "\n";
            const std::string config_path = dir_ + "/sshd" + n + ".conf";
            std::ofstream(config_path) << sshd.str();
            std::vector<std::string> argv;
            if (!specs[i].netns.empty()) {
                argv = {"/usr/sbin/ip", "netns", "exec", specs[i].netns};
            }
            argv.insert(argv.end(), {"/usr/sbin/sshd", "-D", "-e", "-f", config_path});
            host.sshd = spawn(argv, dir_ + "/sshd" + n + ".log");
            if (!wait_for_listener(specs[i].address, host.port)) {
                hosts_.push_back(std::move(host));
                throw std::runtime_error(
                    "sshd " + n + " did not listen: " + read_text(dir_ + "/sshd" + n + ".log"));
            }
        }
        if (specs[i].known) {
            known << (host.port == 22 ? specs[i].address
                                      : "[" + specs[i].address + "]:" + std::to_string(host.port))
                  << " " << key_text(host_pub) << "\n";
        }
        config << "Host node" << n << "\n  HostName " << specs[i].address << "\n  Port "
               << host.port << "\n";
        hosts_.push_back(std::move(host));
    }
    (void)other_pub;
    std::ofstream(dir_ + "/known_hosts") << known.str();
    config << "Host *\n  User root\n  IdentityFile " << client_key_
           << "\n  IdentitiesOnly yes\n  IdentityAgent none\n  UserKnownHostsFile " << dir_
           << "/known_hosts\n  GlobalKnownHostsFile /dev/null\n";
    ssh_config_ = dir_ + "/ssh_config";
    std::ofstream(ssh_config_) << config.str();
}

SshFleet::~SshFleet() {
    stop();
}

void SshFleet::stop() {
    for (Host& host : hosts_) {
        if (host.sshd > 0) {
            kill(host.sshd, SIGTERM);  // the sshd this fixture started
            int status = 0;
            waitpid(host.sshd, &status, 0);
            host.sshd = -1;
        }
    }
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
}

std::vector<std::string> SshFleet::gpukill_argv(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {
        GPUKILL_BIN, "--ssh-config",      ssh_config_, "--remote-gpukill",
        GPUKILL_BIN, "--connect-timeout", "5"};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
}

CommandResult SshFleet::gpukill(const std::vector<std::string>& args, double timeout) const {
    return run_command(gpukill_argv(args), {{"GPUKILL_STATE_DIR", dir_ + "/controller-state"}},
                       timeout);
}

NetnsSet::NetnsSet(std::size_t count) {
    try {
        create(count);
    } catch (...) {
        remove();
        throw;
    }
}

void NetnsSet::create(std::size_t count) {
    const std::string tag = std::to_string(getpid() % 100000);
    for (std::size_t i = 0; i < count; ++i) {
        const std::string ns = "gkf" + tag + "n" + std::to_string(i);
        const std::string outside = "gkf" + tag + "h" + std::to_string(i);
        const std::string subnet = "10.231." + std::to_string(i) + ".";
        names_.push_back(ns);
        addresses_.push_back(subnet + "2");
        const std::string ip = "/usr/sbin/ip";
        must(run_command({ip, "netns", "add", ns}), "ip netns add");
        must(run_command(
                 {ip, "link", "add", outside, "type", "veth", "peer", "name", "eth0", "netns", ns}),
             "ip link add veth");
        must(run_command({ip, "addr", "add", subnet + "1/24", "dev", outside}), "ip addr");
        must(run_command({ip, "link", "set", outside, "up"}), "ip link up");
        must(run_command({ip, "-n", ns, "addr", "add", subnet + "2/24", "dev", "eth0"}),
             "ip addr in ns");
        must(run_command({ip, "-n", ns, "link", "set", "eth0", "up"}), "ip link up in ns");
        must(run_command({ip, "-n", ns, "link", "set", "lo", "up"}), "lo up in ns");
    }
}

NetnsSet::~NetnsSet() {
    remove();
}

void NetnsSet::remove() {
    for (const std::string& ns : names_) {
        run_command({"/usr/sbin/ip", "netns", "del", ns});  // takes its veth pair with it
    }
}

}  // namespace gpukill::testing

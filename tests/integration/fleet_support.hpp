// Real OpenSSH servers for the fleet tests: host keys and a client key generated at
// test time, one sshd per simulated host on a loopback port (or inside a network
// namespace of its own), each with that host's gpusim environment (sshd_config
// SetEnv), an ssh_config naming them node1..nodeN, and a known_hosts the test writes.
// Everything is stopped and removed by the destructor, also when a test fails.
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support.hpp"

namespace gpukill::testing {

bool can_run_sshd();  // root, with /usr/sbin/sshd and ssh-keygen present

struct SshHostSpec {
    bool known = true;         // its key in known_hosts
    bool key_changed = false;  // known_hosts holds another key for it
    bool listening = true;     // false: a port where nothing listens
    std::string netns;         // run sshd in this namespace (made by the caller)
    std::string address = "127.0.0.1";
    // More of the host's environment than its simulator's (sshd SetEnv): a container
    // runtime's socket, a Slurm configuration.
    std::map<std::string, std::string> extra_env = {};
};

class SshFleet {
  public:
    explicit SshFleet(const std::vector<SshHostSpec>& hosts);
    ~SshFleet();
    SshFleet(const SshFleet&) = delete;
    SshFleet& operator=(const SshFleet&) = delete;

    std::size_t size() const { return hosts_.size(); }
    std::string name(std::size_t i) const { return "node" + std::to_string(i + 1); }
    SimulatedHost& host(std::size_t i) { return *hosts_[i].sim; }
    const std::string& ssh_config() const { return ssh_config_; }
    const std::string& client_key() const { return client_key_; }
    const std::string& dir() const { return dir_; }

    // gpukill with --ssh-config and --remote-gpukill set, then `args`.
    CommandResult gpukill(const std::vector<std::string>& args, double timeout = 60) const;
    std::vector<std::string> gpukill_argv(const std::vector<std::string>& args) const;

  private:
    void start(const std::vector<SshHostSpec>& specs);
    void stop();
    struct Host {
        std::unique_ptr<SimulatedHost> sim;
        SshHostSpec spec;
        unsigned port = 0;
        pid_t sshd = -1;
    };
    std::string dir_;
    std::string ssh_config_;
    std::string client_key_;
    std::vector<Host> hosts_;
};

// Network namespaces made for a test, each joined to the host's namespace by a veth
// pair with its own 10.x address; deleted by the destructor.
class NetnsSet {
  public:
    explicit NetnsSet(std::size_t count);
    ~NetnsSet();
    NetnsSet(const NetnsSet&) = delete;
    NetnsSet& operator=(const NetnsSet&) = delete;
    const std::string& name(std::size_t i) const { return names_[i]; }
    const std::string& address(std::size_t i) const { return addresses_[i]; }

  private:
    void create(std::size_t count);
    void remove();
    std::vector<std::string> names_;
    std::vector<std::string> addresses_;
};

}  // namespace gpukill::testing

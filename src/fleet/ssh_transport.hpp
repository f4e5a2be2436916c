// The SSH transport: the system's OpenSSH client, run once per call with no shell on
// this side. It never asks for a password (BatchMode=yes), checks host keys
// (StrictHostKeyChecking=yes; accept-new only when asked), and reuses one connection
// per host (ControlMaster/ControlPersist, sockets in a private 0700 directory made per
// run and removed at the end). The remote side runs `<remote gpukill> --version` once,
// then `<remote gpukill> ARGS... --json`, each argument quoted for the remote shell.
// Keys come from the user's ssh configuration and agent: no secret is ever put in a
// child's argv or environment by gpukill.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fleet/transport.hpp"
#include "model/result.hpp"

namespace gpukill::fleet {

struct SshOptions {
    std::string ssh_program = "ssh";
    std::optional<std::string> config_file;  // ssh -F
    std::vector<std::string> options;        // ssh -o, after the ones gpukill fixes
    bool accept_new_host_keys = false;
    double connect_timeout_seconds = 10;
    double command_timeout_seconds = 120;
    std::string remote_gpukill = "gpukill";
    // True once the operator asked to stop: a read in flight ends at once; an action in
    // flight is left to finish within its timeout, so its report is not lost.
    std::function<bool()> interrupted;
};

// One argument quoted for a POSIX shell: as is when plain, else in single quotes.
std::string shell_quote(const std::string& argument);

// The one line an operator reads for an ssh failure (exit 255) to `host`.
std::string describe_ssh_failure(const std::string& host, const std::string& stderr_text);

// "gpukill 0.1.0 (commit abc)" -> "0.1.0"; empty when it is not gpukill's version line.
std::string parse_version_line(const std::string& text);

class SshTransport : public Transport {
  public:
    // Creates the private control directory. Errors: it cannot be made; invalid_input for
    // --accept-new-host-keys with a known-hosts file that keeps nothing (/dev/null), which
    // would accept every key of every host, every time.
    static Result<std::unique_ptr<SshTransport>> open(SshOptions options);
    ~SshTransport() override;

    HostReply call(const std::string& host, const RemoteCall& call) override;
    void finish(const std::vector<std::string>& hosts) override;
    const char* name() const override { return "ssh"; }

    // The ssh argv for `remote_command` on `host` (for tests and the docs).
    std::vector<std::string> ssh_argv(const std::string& host,
                                      const std::optional<std::string>& remote_command) const;

  private:
    SshTransport(SshOptions options, std::string control_dir);
    HostReply run_remote(const std::string& host, const std::vector<std::string>& arguments,
                         double timeout_seconds, bool acts = false);
    std::optional<HostReply> check_version(const std::string& host);
    void remember_reached(const std::string& host);

    SshOptions options_;
    std::string control_dir_;
    std::mutex mutex_;
    std::set<std::string> checked_;  // hosts whose remote version passed
    std::set<std::string> reached_;  // hosts with a control master to close
};

}  // namespace gpukill::fleet

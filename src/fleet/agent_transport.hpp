// The agent transport: HTTPS (plain HTTP only to a loopback address) to each host's
// gpukill agent, `Authorization: Bearer <token>`, the token read from a file that only
// its owner may read and never passed to any child process. The server's certificate is
// verified (against --agent-ca, else the system's store). The requests are the agent's
// /v1 API (docs/API.md): GET /v1/version once per host, then the call's method and path
// with its JSON body; the answers are the same single-host documents as over SSH.
//
// "Loopback" is decided on the addresses the name resolves to, and those addresses are
// the ones connected to: a name like 127.0.0.1.example.com that resolves elsewhere gets
// no token in clear. Everything a host sends is bounded (net/http_client.hpp): the
// reply's head, its body (kMaxReplyBytes), and time: the version check and the call
// together within --command-timeout, however slowly the host answers. An interrupt
// (Ctrl-C, SIGTERM) ends a read in flight within a tenth of a second; an action in
// flight is left to finish within --command-timeout, so its report is not lost.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "fleet/transport.hpp"
#include "model/result.hpp"
#include "net/socket_channel.hpp"

namespace gpukill::fleet {

inline constexpr unsigned kDefaultAgentPort = 9402;
// The largest answer read from an agent; more is that host's error.
inline constexpr std::size_t kMaxReplyBytes = 16u << 20;

struct AgentOptions {
    std::optional<std::string> token_file;
    std::optional<std::string> ca_file;
    std::string scheme = "https";  // or "http", to loopback addresses only
    unsigned default_port = kDefaultAgentPort;
    double connect_timeout_seconds = 10;
    double command_timeout_seconds = 120;
    std::size_t max_reply_bytes = kMaxReplyBytes;
    // True once the operator asked to stop (the fleet command's interrupt flag).
    std::function<bool()> interrupted;
};

// The token in `path`, without its trailing newline. Refused (permission) when the file
// is readable by its group or others, or not a regular file; empty is invalid.
Result<std::string> read_token_file(const std::string& path);

// "https://node01:9402" for host "node01"; a `host:port` entry keeps its port. Plain
// http to an address literal outside 127.0.0.0/8 and ::1 is refused here; to a name,
// when the request resolves it to any address that is not loopback.
Result<std::string> agent_base_url(const std::string& host, const AgentOptions& options);

// The reply for an HTTP answer: 2xx carries the document (its exit_code, a check's
// verdict, a rogue report's findings give the exit code); an error status carries
// {"error": {"category", "message"}}, mapped to the command line's exit codes.
HostReply agent_reply(int http_status, const std::string& body);

// The command line's exit code for an error category name ("conflict" -> 1).
int exit_code_for_category(const std::string& category, int http_status);

class AgentTransport : public Transport {
  public:
    // Reads the token file. Errors: it is missing, unsafe or empty.
    static Result<std::unique_ptr<AgentTransport>> open(AgentOptions options);

    HostReply call(const std::string& host, const RemoteCall& call) override;
    const char* name() const override { return "agent"; }
    bool plans_expire() const override { return true; }

  private:
    using Deadline = std::chrono::steady_clock::time_point;
    AgentTransport(AgentOptions options, std::string token, std::optional<net::TlsContext> tls);
    HostReply request(const std::string& host, const std::string& method, const std::string& path,
                      const std::optional<std::string>& body, Deadline deadline, bool acts);
    std::optional<HostReply> check_version(const std::string& host, Deadline deadline);

    AgentOptions options_;
    std::string token_;
    std::optional<net::TlsContext> tls_;  // for https
    std::mutex mutex_;
    std::set<std::string> checked_;
};

}  // namespace gpukill::fleet

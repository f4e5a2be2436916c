// How a fleet command reaches one host. A RemoteCall describes one request for both
// transports at once: the gpukill arguments the SSH transport runs remotely (always
// with --json: nothing is ever parsed from a table) and the HTTP request the agent
// transport sends; both answer with the same single-host JSON document. A transport
// checks the remote version once per host before the first call, and classifies what
// went wrong so the fleet can say "unreachable" apart from "ran and failed".
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpukill::fleet {

struct RemoteCall {
    std::vector<std::string> arguments;  // after the remote gpukill path; --json included
    std::string http_method = "GET";     // the agent's request
    std::string http_path;               // "/v1/snapshot"; empty: not offered by the agent
    std::optional<nlohmann::ordered_json> http_body;
    bool acts = false;  // it may change the host (kill, reset): never retried
};

enum class HostStatus {
    ok,            // it ran and exited 0
    failed,        // it ran (or the agent answered) and reported a failure: the exit code says
    unreachable,   // no connection, authentication or host key refused, timed out
    incompatible,  // reached, but gpukill is missing there or too old
    not_run,       // never started: interrupted, --fail-fast, or too many hosts failed
};
const char* to_string(HostStatus status);

struct HostReply {
    HostStatus status = HostStatus::not_run;
    int exit_code = 0;                 // the remote gpukill's; kUnreachableExit when it never ran
    std::optional<std::string> error;  // one line
    nlohmann::ordered_json result;     // the single-host JSON document; null when none
    double seconds = 0;
};

// `?name=value&...` with every byte outside RFC 3986's unreserved set percent-encoded;
// empty for no parameters. Pure.
std::string query_string(const std::vector<std::pair<std::string, std::string>>& parameters);

// The exit code of a host that could not be reached or ran no usable gpukill (README).
inline constexpr int kUnreachableExit = 10;

// The oldest remote gpukill a fleet command drives (it knows --plan-id and --actor).
inline constexpr const char* kMinimumRemoteVersion = "0.1.0";

// "0.1.0" < "0.2.0" < "0.10.0". Unparsable text compares as older than anything.
bool version_at_least(const std::string& version, const std::string& minimum);

// The reply for a finished remote run: ok/failed by exit code, the document parsed from
// stdout (or null), the error from the document or from `stderr_text`'s last line.
HostReply reply_from_output(int exit_code, const std::string& stdout_text,
                            const std::string& stderr_text);

class Transport {
  public:
    virtual ~Transport() = default;
    // Thread-safe: called from the fan-out's workers, one call per host at a time.
    virtual HostReply call(const std::string& host, const RemoteCall& call) = 0;
    // Closes what was kept open for reuse (SSH control masters). Called once at the end.
    virtual void finish(const std::vector<std::string>& hosts) { (void)hosts; }
    virtual const char* name() const = 0;
    // Whether the host honours a plan id only for a plan it showed lately (the agent: to
    // the same token, within 120 seconds, once; docs/AGENT.md). The act phase then has
    // each host show its plan again just before acting on it.
    virtual bool plans_expire() const { return false; }
};

}  // namespace gpukill::fleet

// The agent's local channel: how gpukill processes of one host ask the running agent for
// something only it can do, over a unix socket in the state directory that only root (or
// the agent's own user) may use. Today: let go of its driver session while another
// process resets a GPU (NVIDIA's reset refuses a GPU any process has open, and the agent
// keeps NVML open), and answer a `gpukill list` with the host as it reads it now (its
// event-driven holder tracker makes that a rescan of what changed, where the list would
// sweep every process). docs/AGENT.md, "The local channel", is its reference.
//
// Protocol, version 1: one JSON object per line ("\n"), at most 64 KiB, each way.
//   request: {"v":1,"request":NAME, ...its fields}
//   reply:   {"v":1,"ok":true, ...} or {"v":1,"ok":false,"error":{"category":C,"message":M}}
// A snapshot's reply is followed by one more line, the `list --json` document itself, of
// the length the reply names and at most kMaxLocalSnapshotBytes.
// The peer is checked by the kernel's credentials (SO_PEERCRED) on both ends, never by
// what it sends: the agent serves only root or its own user; a client talks only to a
// socket owned by root or itself whose listener runs as root or as itself.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "model/host_roots.hpp"
#include "model/result.hpp"
#include "model/snapshot.hpp"
#include "sys/local_socket.hpp"

namespace gpukill::engine {

inline constexpr int kLocalChannelVersion = 1;
inline constexpr std::size_t kLocalLineBytes = 64 * 1024;
// How long the agent keeps its driver session let go at most, whatever is asked: the
// systemd unit's watchdog (120 s) must not fire while it waits.
inline constexpr double kMaxReleaseSeconds = 60;

// The most a snapshot's document may weigh on the channel: `list --json` of some 50,000
// GPU processes. Neither end writes or reads more.
inline constexpr std::size_t kMaxLocalSnapshotBytes = 64u << 20;

// STATE_DIR/agent.sock.
std::string local_channel_path(const std::string& state_dir);

// Creates the directory a socket at `socket_path` lives in the way the state directory is
// made (mode 0750, parents included), before the agent listens there.
Result<void> make_local_channel_directory(const std::string& socket_path);

struct LocalRequest {
    std::string name;       // "hello", "release_driver_session", "resume_driver_session"
    nlohmann::json fields;  // the whole object
};

// One request line. invalid_input: not JSON, not an object, another version, no name.
Result<LocalRequest> parse_local_request(std::string_view line);

// The reply lines.
std::string local_ok(nlohmann::json fields = nlohmann::json::object());
std::string local_error(const Error& error);

// What a reply said: its fields when ok, else the error it carried (with its category).
Result<nlohmann::json> parse_local_reply(std::string_view line);

// A held request that the local agent let go of its driver session; the agent takes it up
// again when this is destroyed (the connection closes), when `resume` is called, or at
// the latest after the seconds it was asked for.
class AgentDriverRelease {
  public:
    // Asks the agent serving STATE_DIR's socket to let go for at most `seconds` (capped at
    // kMaxReleaseSeconds), saying `reason` in its log. Empty when no agent serves it (no
    // socket, or a stale one), or when the one serving it is this very process. Errors:
    // an agent that is not trusted (refused), that did not answer or did not let go.
    static Result<std::unique_ptr<AgentDriverRelease>> ask(const std::string& state_dir,
                                                           double seconds,
                                                           const std::string& reason);
    ~AgentDriverRelease();
    AgentDriverRelease(const AgentDriverRelease&) = delete;
    AgentDriverRelease& operator=(const AgentDriverRelease&) = delete;

    pid_t agent_pid() const { return agent_pid_; }
    // Tells the agent to take its session up again and waits (briefly) for it to say so.
    void resume();

  private:
    AgentDriverRelease(sys::LineChannel channel, pid_t agent_pid)
        : channel_(std::move(channel)), agent_pid_(agent_pid) {}

    sys::LineChannel channel_;
    pid_t agent_pid_;
    bool resumed_ = false;
};

// A listing's question to the agent: {"v":1,"request":"snapshot","roots":{"procfs",
// "sysfs","devfs"},"nvml_library":PATH|null}, naming what the listing would read itself.
nlohmann::json local_snapshot_request(const HostRoots& roots,
                                      const std::optional<std::string>& nvml_library);

// Whether an agent reading `roots` through `nvml_library` answers `request` for the very
// host the listing would read. Errors: conflict (other roots or another NVML library: a
// test's simulated host, a fixture tree), invalid_input (the fields are malformed).
Result<void> check_local_snapshot_request(const nlohmann::json& request, const HostRoots& roots,
                                          const std::optional<std::string>& nvml_library);

// The reply's first line for a document of `document_bytes`; the document follows it.
std::string local_snapshot_reply(std::size_t document_bytes);

struct AgentSnapshot {
    Snapshot snapshot;  // the whole host, as `list --json` carried it
    pid_t agent_pid = 0;
};

// Asks the agent serving STATE_DIR's socket for the host as it reads it now, by
// `deadline`, for a listing that would read `roots` through `nvml_library`. Empty when no
// agent serves it (no socket, or a stale one) or when the one serving it is this very
// process (an agent never asks itself). Errors: refused (a socket or listener that is
// neither root's nor this user's), permission (the agent serves root and its own user
// only), conflict (it reads other roots or another NVML library), unavailable (no answer
// by the deadline, the connection failed), internal (an answer that is no reply, too
// long, or whose document does not read back), and whatever else the agent answered.
Result<std::optional<AgentSnapshot>> ask_agent_snapshot(
    const std::string& state_dir, const HostRoots& roots,
    const std::optional<std::string>& nvml_library, sys::Deadline deadline);

}  // namespace gpukill::engine

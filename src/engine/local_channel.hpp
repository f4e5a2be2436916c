// The agent's local channel: how gpukill processes of one host ask the running agent for
// something only it can do, over a unix socket in the state directory that only root (or
// the agent's own user) may use. Today: let go of its driver session while another
// process resets a GPU (NVIDIA's reset refuses a GPU any process has open, and the agent
// keeps NVML open). The protocol is meant to carry more requests (a `list` answered by
// the agent is the next one); docs/AGENT.md, "The local channel", is its reference.
//
// Protocol, version 1: one JSON object per line ("\n"), at most 64 KiB, each way.
//   request: {"v":1,"request":NAME, ...its fields}
//   reply:   {"v":1,"ok":true, ...} or {"v":1,"ok":false,"error":{"category":C,"message":M}}
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

#include "model/result.hpp"
#include "sys/local_socket.hpp"

namespace gpukill::engine {

inline constexpr int kLocalChannelVersion = 1;
inline constexpr std::size_t kLocalLineBytes = 64 * 1024;
// How long the agent keeps its driver session let go at most, whatever is asked: the
// systemd unit's watchdog (120 s) must not fire while it waits.
inline constexpr double kMaxReleaseSeconds = 60;

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

}  // namespace gpukill::engine

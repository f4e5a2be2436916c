// The agent's end of the local channel (engine/local_channel.hpp; docs/AGENT.md, "The
// local channel"): a unix socket in the state directory, mode 0600, on which root (or the
// agent's own user, by the kernel's SO_PEERCRED) asks the running agent what only it can
// do. Requests:
//   hello                   -> {"agent_pid", "version", "requests"}
//   snapshot                -> {"agent_pid","snapshot_bytes":N}, then one line of N bytes:
//                              the `list --json` document of a snapshot taken now (the
//                              engine's, under its lock; this agent's own device files
//                              included), when the request's "roots" and "nvml_library"
//                              are this agent's (else conflict)
//   release_driver_session  -> {"released":true,"seconds"} once every driver session is
//                              let go (NVML shut down: the agent holds no GPU device file);
//                              taken up again when the client sends resume_driver_session
//                              (-> {"resumed":true}), closes the connection, or after
//                              "seconds" (at most kMaxReleaseSeconds), whichever is first
// One connection at a time, each idle at most 10 s between requests; a request line is at
// most 64 KiB, a snapshot's document at most engine::kMaxLocalSnapshotBytes. Every release
// is logged with the client's PID and uid; snapshots are not (a `gpukill list` each).
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "agent/agent_core.hpp"
#include "model/result.hpp"
#include "sys/fd_io.hpp"
#include "sys/local_socket.hpp"

namespace gpukill::agent {

class LocalChannelServer {
  public:
    // Listens on `path` and serves from a thread of its own. Errors: listen_local's.
    static Result<std::unique_ptr<LocalChannelServer>> start(const std::string& path,
                                                             AgentCore& core);
    ~LocalChannelServer();  // stops, finishing the connection in progress, removes the socket
    LocalChannelServer(const LocalChannelServer&) = delete;
    LocalChannelServer& operator=(const LocalChannelServer&) = delete;

    const std::string& path() const { return path_; }

  private:
    LocalChannelServer(std::string path, UniqueFd listener, UniqueFd stop_read, UniqueFd stop_write,
                       AgentCore& core);
    void serve();
    void handle(UniqueFd connection);
    void snapshot(sys::LineChannel& channel, const nlohmann::json& request);
    void release(sys::LineChannel& channel, const sys::PeerCredentials& peer,
                 const nlohmann::json& request);

    std::string path_;
    UniqueFd listener_;
    UniqueFd stop_read_;  // readable once the server is stopping
    UniqueFd stop_write_;
    AgentCore& core_;
    std::thread thread_;
};

}  // namespace gpukill::agent

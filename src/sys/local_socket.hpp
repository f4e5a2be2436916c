// A unix stream socket on the local file system, for requests between gpukill processes
// of one host (the agent's local channel, docs/AGENT.md): who is at the other end comes
// from the kernel (SO_PEERCRED: the peer's pid, uid and gid when it connected), never from
// what the peer sends; lines are bounded in length and time.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "model/result.hpp"
#include "sys/fd_io.hpp"

namespace gpukill::sys {

using Deadline = std::chrono::steady_clock::time_point;

struct PeerCredentials {
    pid_t pid = 0;
    uid_t uid = 0;
    gid_t gid = 0;
};

// The kernel's record of who is at the other end of a connected unix socket.
Result<PeerCredentials> peer_credentials(int fd);

// Whether a peer may use a root-only local channel served (or reached) by a process whose
// effective uid is `own_uid`: root, or the very user the other end runs as (who can
// already signal and trace it, so nothing is given away).
bool trusted_local_peer(uid_t peer_uid, uid_t own_uid);

// Listens on `path` (mode 0600, owned by this process's user). A socket left there by a
// process that is gone (connecting is refused) is replaced; a live one is a conflict (another
// agent serves it), and anything that is not a socket is never removed (invalid_input).
Result<UniqueFd> listen_local(const std::string& path);

// Connects to `path`. not_found when nothing listens there (no file, or a stale socket).
Result<UniqueFd> connect_local(const std::string& path);

// One connection's lines: "\n"-terminated, at most `max_line` bytes each.
class LineChannel {
  public:
    explicit LineChannel(UniqueFd fd, std::size_t max_line = 64 * 1024)
        : fd_(std::move(fd)), max_line_(max_line) {}

    // The next line without its newline. not_found at the end of the stream (the peer
    // closed), conflict past the deadline, invalid_input for a line over the limit.
    Result<std::string> read_line(Deadline deadline);
    // The same with another limit for this one line (a long reply after a short header).
    Result<std::string> read_line(Deadline deadline, std::size_t max_line);
    // Writes `line` and a newline, whole, by the deadline.
    Result<void> write_line(std::string_view line, Deadline deadline);
    // Whether the peer closed its end or sent more (readable), waiting until `deadline`
    // or until `also` (another descriptor, e.g. a stop pipe; -1: none) is readable. False
    // when the deadline passed or `also` woke it with nothing to read here.
    bool wait_readable(Deadline deadline, int also = -1);

    int fd() const { return fd_.get(); }

  private:
    UniqueFd fd_;
    std::size_t max_line_;
    std::string buffer_;  // read past the last line returned
};

}  // namespace gpukill::sys

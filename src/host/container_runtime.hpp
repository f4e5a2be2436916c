// Which image a container runs, asked of its container runtime: the Docker Engine API
// (Docker, and Podman's compatible API) over its unix socket, GET
// /containers/{id}/json -> Config.Image (the name and tag it was started from; Image,
// the image id, when that is empty).
//
// The cgroup says which container a process is in (cgroup_parse); only the runtime
// knows the image. Answers are cached per container id for `ttl` (a container's image
// never changes, but ids are reused rarely and a cache must not grow for weeks), at
// most `max_entries`; a runtime that did not answer (timed out, refused, an error
// status) is asked again after `retry_after`, since a busy runtime is not an answer. A runtime that
// is not there costs one failed connect per socket per snapshot at most: without any socket
// present, nothing is asked.
//
// containerd's CRI is gRPC (not spoken here): containers it runs are resolved only when
// one of the sockets answers for them (a Docker or Podman host). Kubernetes gives the
// pod UID through the cgroup (ContainerInfo::pod_uid); its namespace comes from the
// kubelet's pod log directories (host/pod_namespaces.hpp), never from the API server.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/process.hpp"
#include "model/result.hpp"

namespace gpukill {

struct ContainerRuntimeOptions {
    std::vector<std::string> sockets;  // tried in order; empty: no resolution at all
    std::chrono::seconds ttl{300};
    std::size_t max_entries = 1024;
    std::chrono::milliseconds timeout{500};  // per request: connect, send and read
    // A runtime that did not answer (timed out, refused, an error status) is asked again
    // after this, not after `ttl`: a busy runtime must not hide an image for minutes.
    std::chrono::seconds retry_after{2};
};

// GPUKILL_CONTAINER_SOCKETS (colon-separated paths; empty turns resolution off), else
// /var/run/docker.sock, /run/podman/podman.sock and $XDG_RUNTIME_DIR/podman/podman.sock.
std::vector<std::string> default_container_sockets(const char* env_sockets,
                                                   const char* xdg_runtime_dir);

// One HTTP/1.1 GET over a unix socket; the body of a 200 answer (Content-Length, chunked
// or read to the end). Bounded: 1 MiB of answer. Errors: unavailable (no socket, refused,
// timed out), not_found (404), internal (any other status, a malformed answer).
Result<std::string> unix_socket_http_get(const std::string& socket_path, std::string_view target,
                                         std::chrono::milliseconds timeout);

// Config.Image of a /containers/{id}/json answer, else Image; empty when neither is a
// non-empty string or the text is not JSON. Pure.
std::optional<std::string> image_from_inspect(std::string_view body);

class ContainerImageResolver {
  public:
    explicit ContainerImageResolver(ContainerRuntimeOptions options);

    // The image of `container`, when a runtime socket names it. Runtime-less
    // containers (an id the cgroup did not give) are never asked about.
    std::optional<std::string> image_of(const ContainerInfo& container,
                                        std::chrono::steady_clock::time_point now);
    bool enabled() const { return !options_.sockets.empty(); }
    std::size_t cached() const { return cache_.size(); }

  private:
    struct Entry {
        std::optional<std::string> image;
        std::chrono::steady_clock::time_point expires;
    };
    struct Answer {
        std::optional<std::string> image;
        bool definitive = false;  // a runtime answered: the image, or that it has none
    };
    Answer ask(const std::string& id);
    void prune(std::chrono::steady_clock::time_point now);

    ContainerRuntimeOptions options_;
    std::unordered_map<std::string, Entry> cache_;
};

}  // namespace gpukill

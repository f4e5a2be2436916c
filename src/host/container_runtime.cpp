#include "host/container_runtime.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

#include "sys/fd_io.hpp"

namespace gpukill {
namespace {

constexpr std::size_t kMaxRuntimeAnswerBytes = 1 << 20;

using SteadyTime = std::chrono::steady_clock::time_point;

int runtime_ms_left(SteadyTime deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    return left.count() <= 0 ? 0 : static_cast<int>(left.count());
}

bool runtime_wait(int fd, short events, SteadyTime deadline) {
    pollfd p{.fd = fd, .events = events, .revents = 0};
    for (;;) {
        const int ready = ::poll(&p, 1, runtime_ms_left(deadline));
        if (ready > 0) return true;
        if (ready == 0) return false;
        if (errno != EINTR) return false;
    }
}

// Chunked transfer coding (RFC 9112 7.1) undone; empty on a malformed body.
std::optional<std::string> runtime_unchunk(std::string_view body) {
    std::string out;
    for (;;) {
        const std::size_t eol = body.find("\r\n");
        if (eol == std::string_view::npos) return std::nullopt;
        std::size_t size = 0;
        std::size_t i = 0;
        for (; i < eol && std::isxdigit(static_cast<unsigned char>(body[i])); ++i) {
            if (size > kMaxRuntimeAnswerBytes) return std::nullopt;
            const char c = body[i];
            size = size * 16 + static_cast<std::size_t>(std::isdigit(static_cast<unsigned char>(c))
                                                            ? c - '0'
                                                            : std::tolower(c) - 'a' + 10);
        }
        if (i == 0) return std::nullopt;
        body.remove_prefix(eol + 2);
        if (size == 0) return out;
        if (body.size() < size + 2) return std::nullopt;
        out.append(body.substr(0, size));
        body.remove_prefix(size + 2);
    }
}

std::string runtime_lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

Result<std::string> runtime_parse_answer(const std::string& answer) {
    const std::size_t head_end = answer.find("\r\n\r\n");
    if (head_end == std::string::npos || !answer.starts_with("HTTP/1.")) {
        return fail(ErrorCategory::internal, "container runtime: malformed HTTP answer");
    }
    const std::string head = runtime_lower(std::string_view(answer).substr(0, head_end));
    const std::size_t space = head.find(' ');
    const int status = space == std::string::npos ? 0 : std::atoi(head.c_str() + space + 1);
    std::string_view body = std::string_view(answer).substr(head_end + 4);
    if (status == 404)
        return fail(ErrorCategory::not_found, "container runtime: no such container");
    if (status != 200) {
        return fail(ErrorCategory::internal,
                    "container runtime answered HTTP " + std::to_string(status));
    }
    if (head.find("\r\ntransfer-encoding: chunked") != std::string::npos) {
        auto plain = runtime_unchunk(body);
        if (!plain) return fail(ErrorCategory::internal, "container runtime: malformed chunks");
        return *plain;
    }
    if (const std::size_t at = head.find("\r\ncontent-length:"); at != std::string::npos) {
        const auto length =
            static_cast<std::size_t>(std::strtoull(head.c_str() + at + 17, nullptr, 10));
        if (body.size() < length) {
            return fail(ErrorCategory::internal, "container runtime: answer cut short");
        }
        body = body.substr(0, length);
    }
    return std::string(body);
}

}  // namespace

std::vector<std::string> default_container_sockets(const char* env_sockets,
                                                   const char* xdg_runtime_dir) {
    std::vector<std::string> sockets;
    if (env_sockets != nullptr) {
        std::string_view rest(env_sockets);
        while (!rest.empty()) {
            const std::size_t colon = rest.find(':');
            const std::string_view one = rest.substr(0, colon);
            if (!one.empty()) sockets.emplace_back(one);
            if (colon == std::string_view::npos) break;
            rest.remove_prefix(colon + 1);
        }
        return sockets;
    }
    sockets = {"/var/run/docker.sock", "/run/podman/podman.sock"};
    if (xdg_runtime_dir != nullptr && *xdg_runtime_dir == '/') {
        sockets.push_back(std::string(xdg_runtime_dir) + "/podman/podman.sock");
    }
    return sockets;
}

Result<std::string> unix_socket_http_get(const std::string& socket_path, std::string_view target,
                                         std::chrono::milliseconds timeout) {
    const SteadyTime deadline = std::chrono::steady_clock::now() + timeout;
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (socket_path.size() >= sizeof(address.sun_path)) {
        return fail(ErrorCategory::invalid_input, "socket path too long: " + socket_path);
    }
    std::memcpy(address.sun_path, socket_path.c_str(), socket_path.size() + 1);
    UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!fd) return std::unexpected(os_error("socket", errno));
    if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
        if (errno != EINPROGRESS && errno != EAGAIN) {
            return std::unexpected(
                as(ErrorCategory::unavailable, os_error("connect " + socket_path, errno)));
        }
        if (!runtime_wait(fd.get(), POLLOUT, deadline)) {
            return fail(ErrorCategory::unavailable, "connect " + socket_path + ": timed out");
        }
        int so_error = 0;
        socklen_t length = sizeof(so_error);
        ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &so_error, &length);
        if (so_error != 0) {
            return std::unexpected(
                as(ErrorCategory::unavailable, os_error("connect " + socket_path, so_error)));
        }
    }
    const std::string request = "GET " + std::string(target) +
                                " HTTP/1.1\r\nHost: localhost\r\nUser-Agent: gpukill\r\n"
                                "Accept: application/json\r\nConnection: close\r\n\r\n";
    std::size_t sent = 0;
    while (sent < request.size()) {
        const ssize_t n =
            ::send(fd.get(), request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
        if (n > 0) {
            sent += static_cast<std::size_t>(n);
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && errno == EAGAIN && runtime_wait(fd.get(), POLLOUT, deadline)) {
            continue;
        } else {
            return fail(ErrorCategory::unavailable, "send to " + socket_path + " failed");
        }
    }
    std::string answer;
    char buffer[8192];
    for (;;) {
        const ssize_t n = ::recv(fd.get(), buffer, sizeof(buffer), 0);
        if (n > 0) {
            answer.append(buffer, static_cast<std::size_t>(n));
            if (answer.size() > kMaxRuntimeAnswerBytes) {
                return fail(ErrorCategory::internal, "container runtime: answer over 1 MiB");
            }
        } else if (n == 0) {
            break;
        } else if (errno == EINTR) {
            continue;
        } else if (errno == EAGAIN && runtime_wait(fd.get(), POLLIN, deadline)) {
            continue;
        } else {
            return fail(ErrorCategory::unavailable, "read from " + socket_path + ": timed out");
        }
    }
    return runtime_parse_answer(answer);
}

std::optional<std::string> image_from_inspect(std::string_view body) {
    const nlohmann::json doc = nlohmann::json::parse(body, nullptr, false);
    if (!doc.is_object()) return std::nullopt;
    if (const auto config = doc.find("Config"); config != doc.end() && config->is_object()) {
        if (const auto image = config->find("Image");
            image != config->end() && image->is_string() && !image->get<std::string>().empty()) {
            return image->get<std::string>();
        }
    }
    if (const auto image = doc.find("Image");
        image != doc.end() && image->is_string() && !image->get<std::string>().empty()) {
        return image->get<std::string>();
    }
    return std::nullopt;
}

ContainerImageResolver::ContainerImageResolver(ContainerRuntimeOptions options)
    : options_(std::move(options)) {}

std::optional<std::string> ContainerImageResolver::image_of(const ContainerInfo& container,
                                                            SteadyTime now) {
    if (!enabled() || container.id.empty()) return std::nullopt;
    // Ids are hex: anything else is not asked about (it would go into a URL).
    for (char c : container.id) {
        if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
    }
    if (const auto found = cache_.find(container.id);
        found != cache_.end() && found->second.expires > now) {
        return found->second.image;
    }
    prune(now);
    Answer answer = ask(container.id);
    if (cache_.size() < options_.max_entries) {
        cache_[container.id] =
            Entry{answer.image, now + (answer.definitive ? options_.ttl : options_.retry_after)};
    }
    return answer.image;
}

ContainerImageResolver::Answer ContainerImageResolver::ask(const std::string& id) {
    // Definitive when every runtime present answered (404 included); a socket that is
    // not there is not a runtime and says nothing either way.
    bool definitive = true;
    for (const std::string& socket : options_.sockets) {
        struct stat st {};
        if (::stat(socket.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
        auto body = unix_socket_http_get(socket, "/containers/" + id + "/json", options_.timeout);
        if (!body) {  // another runtime may know it
            if (body.error().category != ErrorCategory::not_found) definitive = false;
            continue;
        }
        if (auto image = image_from_inspect(*body)) return Answer{std::move(image), true};
    }
    return Answer{std::nullopt, definitive};
}

void ContainerImageResolver::prune(SteadyTime now) {
    std::erase_if(cache_, [&](const auto& entry) { return entry.second.expires <= now; });
}

}  // namespace gpukill

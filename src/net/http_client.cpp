#include "net/http_client.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "net/access.hpp"

namespace gpukill::net {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kSliceMilliseconds = 100;

enum class Waited { ready, timeout, cancelled, failed };

// Waits for `events` on `fd` until `deadline`, in slices, asking `cancelled` between.
Waited wait_for(int fd, short events, Clock::time_point deadline,
                const std::function<bool()>& cancelled) {
    for (;;) {
        if (cancelled && cancelled()) return Waited::cancelled;
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) return Waited::timeout;
        pollfd p{fd, events, 0};
        const int n =
            ::poll(&p, 1, static_cast<int>(std::min<long long>(left, kSliceMilliseconds)));
        if (n > 0) return Waited::ready;
        if (n < 0 && errno != EINTR) return Waited::failed;
    }
}

short poll_events(IoWait wait) {
    return wait == IoWait::writable ? POLLOUT : POLLIN;
}

std::unexpected<HttpClientError> failure(HttpClientFailure kind, std::string detail) {
    return std::unexpected(HttpClientError{kind, std::move(detail)});
}

std::unexpected<HttpClientError> wait_failure(Waited waited, const char* while_doing) {
    switch (waited) {
        case Waited::cancelled:
            return failure(HttpClientFailure::cancelled, "interrupted");
        case Waited::timeout:
            return failure(HttpClientFailure::timeout, fmt::format("timed out {}", while_doing));
        default:
            return failure(HttpClientFailure::malformed,
                           fmt::format("poll failed {}: {}", while_doing, std::strerror(errno)));
    }
}

// A connected socket to one of `addresses`, or why none answered.
std::expected<int, HttpClientError> connect_any(const std::vector<ResolvedAddress>& addresses,
                                                const HttpClientSettings& settings) {
    HttpClientError last{HttpClientFailure::cannot_connect, "no address to connect to"};
    for (const ResolvedAddress& target : addresses) {
        const int fd =
            ::socket(target.address.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            last = {HttpClientFailure::cannot_connect, std::strerror(errno)};
            continue;
        }
        if (::connect(fd, reinterpret_cast<const sockaddr*>(&target.address), target.length) == 0) {
            return fd;
        }
        if (errno != EINPROGRESS) {
            last = {HttpClientFailure::cannot_connect,
                    fmt::format("{}: {}", target.text, std::strerror(errno))};
            ::close(fd);
            continue;
        }
        const Clock::time_point connect_deadline =
            std::min(settings.deadline,
                     Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(settings.connect_seconds)));
        const Waited waited = wait_for(fd, POLLOUT, connect_deadline, settings.cancelled);
        if (waited == Waited::cancelled) {
            ::close(fd);
            return std::unexpected(HttpClientError{HttpClientFailure::cancelled, "interrupted"});
        }
        if (waited != Waited::ready) {
            last = {HttpClientFailure::connect_timeout, target.text};
            ::close(fd);
            continue;
        }
        int error = 0;
        socklen_t length = sizeof error;
        ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
        if (error == 0) return fd;
        last = {HttpClientFailure::cannot_connect,
                fmt::format("{}: {}", target.text, std::strerror(error))};
        ::close(fd);
    }
    return std::unexpected(last);
}

std::string request_text(const HttpClientRequest& request) {
    std::string text = fmt::format("{} {} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
                                   request.method, request.target, request.host_header);
    for (const HttpField& field : request.headers) text += field.name + ": " + field.value + "\r\n";
    if (request.body) text += fmt::format("Content-Length: {}\r\n", request.body->size());
    text += "\r\n";
    if (request.body) text += *request.body;
    return text;
}

}  // namespace

Result<std::vector<ResolvedAddress>> resolve_host(const std::string& host, unsigned port) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    addrinfo* found = nullptr;
    const std::string service = std::to_string(port);
    if (const int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0) {
        return fail(ErrorCategory::unavailable,
                    fmt::format("cannot resolve {}: {}", host, gai_strerror(rc)));
    }
    std::vector<ResolvedAddress> addresses;
    for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
        if (a->ai_family != AF_INET && a->ai_family != AF_INET6) continue;
        ResolvedAddress resolved;
        std::memcpy(&resolved.address, a->ai_addr, a->ai_addrlen);
        resolved.length = a->ai_addrlen;
        char text[INET6_ADDRSTRLEN] = {};
        if (a->ai_family == AF_INET) {
            const auto* v4 = reinterpret_cast<const sockaddr_in*>(a->ai_addr);
            inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
        } else {
            const auto* v6 = reinterpret_cast<const sockaddr_in6*>(a->ai_addr);
            inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
        }
        resolved.text = text;
        // Decided on the numeric address: 127.0.0.0/8 or ::1 (a v4-mapped 127/8 too).
        resolved.loopback =
            is_loopback_address(resolved.text) || resolved.text.starts_with("::ffff:127.");
        addresses.push_back(std::move(resolved));
    }
    freeaddrinfo(found);
    if (addresses.empty()) {
        return fail(ErrorCategory::unavailable, fmt::format("cannot resolve {}: no address", host));
    }
    return addresses;
}

std::expected<HttpClientReply, HttpClientError> http_exchange(
    const std::vector<ResolvedAddress>& addresses, const HttpClientRequest& request,
    const HttpClientSettings& settings) {
    auto fd = connect_any(addresses, settings);
    if (!fd) return std::unexpected(fd.error());
    auto opened = SocketChannel::open(*fd, settings.tls, false, settings.server_name);
    if (!opened) return failure(HttpClientFailure::tls_handshake, opened.error().what);
    SocketChannel channel = std::move(*opened);

    for (;;) {
        const IoStep step = channel.handshake();
        if (step.bytes > 0) break;
        if (step.failed) {
            if (auto why = channel.verification_failure()) {
                return failure(HttpClientFailure::tls_verification, *why);
            }
            return failure(HttpClientFailure::tls_handshake, step.error);
        }
        const Waited waited =
            wait_for(channel.fd(), poll_events(step.wait), settings.deadline, settings.cancelled);
        if (waited != Waited::ready) return wait_failure(waited, "in the TLS handshake");
    }

    const std::string text = request_text(request);
    std::size_t sent = 0;
    while (sent < text.size()) {
        const IoStep step = channel.write(text.data() + sent, text.size() - sent);
        if (step.bytes > 0) {
            sent += step.bytes;
            continue;
        }
        if (step.failed || step.closed) break;  // the server may have answered already
        const Waited waited =
            wait_for(channel.fd(), poll_events(step.wait), settings.deadline, settings.cancelled);
        if (waited != Waited::ready) return wait_failure(waited, "sending the request");
    }

    HttpMessageReader reader(HttpMessageKind::response, settings.limits);
    if (request.method == "HEAD") reader.expect_no_body();
    char buffer[16 * 1024];
    for (;;) {
        switch (reader.state()) {
            case HttpReadState::head_done:
                if (reader.head().status >= 100 && reader.head().status < 200) {
                    // An interim answer (100 Continue): the real one follows.
                    reader.continue_body();
                    const std::string rest = reader.leftover();
                    reader = HttpMessageReader(HttpMessageKind::response, settings.limits);
                    reader.feed(rest);
                } else {
                    reader.continue_body();
                }
                continue;
            case HttpReadState::done:
                return HttpClientReply{reader.head().status, reader.head().fields,
                                       std::move(reader.body())};
            case HttpReadState::failed:
                if (reader.failure().status == 413 || reader.failure().status == 431 ||
                    reader.failure().status == 414) {
                    return failure(HttpClientFailure::too_large, reader.failure().reason);
                }
                return failure(HttpClientFailure::malformed, reader.failure().reason);
            case HttpReadState::head:
            case HttpReadState::body:
                break;
        }
        const IoStep step = channel.read(buffer, sizeof buffer);
        if (step.bytes > 0) {
            reader.feed(std::string_view(buffer, step.bytes));
            continue;
        }
        if (step.closed) {
            reader.end_of_input();
            continue;
        }
        if (step.failed) return failure(HttpClientFailure::malformed, step.error);
        const Waited waited =
            wait_for(channel.fd(), poll_events(step.wait), settings.deadline, settings.cancelled);
        if (waited != Waited::ready) return wait_failure(waited, "waiting for the answer");
    }
}

}  // namespace gpukill::net

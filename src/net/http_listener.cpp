#include "net/http_listener.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "net/socket_channel.hpp"

namespace gpukill::net {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kReadChunk = 16 * 1024;
// After a refusal the listener reads and drops what the peer still sends (so that it
// sees the answer rather than a reset: a client writing a 5 MiB body it was refused
// reads the 413 only once its write is done), this much at most, for this long at
// most. Dropped as it comes: it costs time on the event loop, never memory.
constexpr std::size_t kMaxDrainBytes = 16u << 20;
constexpr double kDrainSeconds = 2;
constexpr int kAcceptBatch = 64;

Clock::duration seconds(double value) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(value));
}

std::string sanitized_header_value(std::string_view value) {
    std::string out(value);
    for (char& c : out) {
        if (c == '\r' || c == '\n' || c == '\0') c = ' ';
    }
    return out;
}

// The address and port of a socket's end, numeric.
void describe_address(const sockaddr_storage& address, std::string& host, std::uint16_t& port) {
    char text[INET6_ADDRSTRLEN] = {};
    if (address.ss_family == AF_INET) {
        const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
        inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
        port = ntohs(v4->sin_port);
    } else if (address.ss_family == AF_INET6) {
        const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address);
        inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
        port = ntohs(v6->sin6_port);
    }
    host = text;
}

}  // namespace

std::string HttpRequest::peer() const {
    return remote_address.find(':') != std::string::npos
               ? fmt::format("[{}]:{}", remote_address, remote_port)
               : fmt::format("{}:{}", remote_address, remote_port);
}

void HttpResponse::set_header(std::string name, std::string value) {
    for (HttpField& field : headers) {
        if (equal_ignoring_case(field.name, name)) {
            field.value = std::move(value);
            return;
        }
    }
    headers.push_back(HttpField{std::move(name), std::move(value)});
}

std::string serialize_response(const HttpResponse& response, bool keep_alive, bool head_only,
                               double idle_seconds, std::size_t requests_left) {
    const bool bodiless = response.status == 204 || response.status == 304 ||
                          (response.status >= 100 && response.status < 200);
    std::string out =
        fmt::format("HTTP/1.1 {} {}\r\n", response.status, http_reason(response.status));
    if (!response.content_type.empty() && !bodiless) {
        out += "Content-Type: " + sanitized_header_value(response.content_type) + "\r\n";
    }
    if (!bodiless) out += fmt::format("Content-Length: {}\r\n", response.body.size());
    for (const HttpField& field : response.headers) {
        if (field.name.empty() || field.name.find_first_of(" :\r\n") != std::string::npos) continue;
        out += field.name + ": " + sanitized_header_value(field.value) + "\r\n";
    }
    if (keep_alive) {
        out += fmt::format("Connection: keep-alive\r\nKeep-Alive: timeout={}, max={}\r\n",
                           std::max(1, static_cast<int>(idle_seconds)), requests_left);
    } else {
        out += "Connection: close\r\n";
    }
    out += "\r\n";
    if (!head_only && !bodiless) out += response.body;
    return out;
}

struct HttpListener::Impl {
    enum class Phase { handshake, reading, handling, answering, draining };

    struct Connection {
        SocketChannel channel;
        Phase phase = Phase::reading;
        HttpMessageReader reader;
        HttpRequest request;
        std::string leftover;  // bytes of a pipelined next request
        bool shed = false;     // over the cap: answered 503 and closed
        bool request_started = false;
        Clock::time_point deadline;
        std::size_t served = 0;
        std::string out;  // what the listener itself writes: 100 Continue, a refusal
        std::size_t out_sent = 0;
        bool close_after_out = false;
        IoWait read_wait = IoWait::readable;
        IoWait write_wait = IoWait::writable;
        std::size_t drained = 0;
        std::size_t reserved = 0;  // body bytes counted in the in-flight total
        std::uint32_t armed = 0;   // epoll events registered; 0: not registered
        // Set by the worker:
        bool answer_written = false;
        bool keep_alive = false;
        bool counted_out = false;  // its last answer is being written: not held against the cap

        // The socket's two ends, copied into each request read from it.
        std::string remote_address;
        std::uint16_t remote_port = 0;
        std::string local_address;
        std::uint16_t local_port = 0;

        Connection(SocketChannel c, HttpLimits limits)
            : channel(std::move(c)), reader(HttpMessageKind::request, limits) {}

        // Ready for the next request on this connection.
        void next_request(HttpLimits limits) {
            reader = HttpMessageReader(HttpMessageKind::request, limits);
            request = HttpRequest{};
            request.remote_address = remote_address;
            request.remote_port = remote_port;
            request.local_address = local_address;
            request.local_port = local_port;
        }
    };

    class FileDescriptor {
      public:
        explicit FileDescriptor(int fd = -1) : fd_(fd) {}
        ~FileDescriptor() { reset(); }
        FileDescriptor(const FileDescriptor&) = delete;
        FileDescriptor& operator=(const FileDescriptor&) = delete;
        int get() const { return fd_; }
        void reset(int fd = -1) {
            if (fd_ >= 0) ::close(fd_);
            fd_ = fd;
        }

      private:
        int fd_;
    };

    HttpListenerSettings settings;
    HttpHandlers handlers;
    std::optional<TlsContext> tls;
    FileDescriptor listen_fd;
    FileDescriptor epoll_fd;
    FileDescriptor wake_fd;
    FileDescriptor spare_fd;
    int port = 0;
    std::atomic<bool> stopping{false};

    std::unordered_map<int, std::unique_ptr<Connection>> connections;
    std::size_t body_bytes_in_flight = 0;

    std::mutex queue_mutex;
    std::condition_variable queue_ready;
    std::deque<Connection*> queue;
    bool queue_closed = false;
    std::vector<Connection*> returned;  // guarded by queue_mutex
    // Connections whose last answer a worker writes or has written, not yet taken back.
    // Counted out before the answer is written, so a client that reconnects as soon as it
    // has read it never finds its old connection still held against the cap.
    std::atomic<std::size_t> finishing{0};
    std::vector<std::thread> workers;

    // --- reactor -------------------------------------------------------------------

    void wake() {
        const std::uint64_t one = 1;
        [[maybe_unused]] const ssize_t n = ::write(wake_fd.get(), &one, sizeof one);
    }

    void arm(Connection& c) {
        std::uint32_t events = 0;
        const bool out_pending = c.out_sent < c.out.size();
        switch (c.phase) {
            case Phase::handshake:
                events = c.read_wait == IoWait::writable ? EPOLLOUT : EPOLLIN;
                break;
            case Phase::reading:
                events = c.read_wait == IoWait::writable ? EPOLLOUT : EPOLLIN;
                if (out_pending) events |= c.write_wait == IoWait::readable ? EPOLLIN : EPOLLOUT;
                break;
            case Phase::answering:
                events = c.write_wait == IoWait::readable ? EPOLLIN : EPOLLOUT;
                break;
            case Phase::draining:
                events = EPOLLIN;
                break;
            case Phase::handling:
                events = 0;
                break;
        }
        const int fd = c.channel.fd();
        if (events == c.armed) return;
        if (events == 0) {
            epoll_ctl(epoll_fd.get(), EPOLL_CTL_DEL, fd, nullptr);
        } else {
            epoll_event event{};
            event.events = events;
            event.data.fd = fd;
            epoll_ctl(epoll_fd.get(), c.armed == 0 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event);
        }
        c.armed = events;
    }

    void release_body(Connection& c) {
        body_bytes_in_flight -= c.reserved;
        c.reserved = 0;
    }

    void close_connection(Connection& c) {
        release_body(c);
        if (c.armed != 0) epoll_ctl(epoll_fd.get(), EPOLL_CTL_DEL, c.channel.fd(), nullptr);
        connections.erase(c.channel.fd());  // closes the socket
    }

    // Answers with the listener's own response and closes after it (then drains).
    void refuse(Connection& c, HttpResponse response) {
        response.close = true;
        c.out = serialize_response(response, false, c.request.method == "HEAD",
                                   settings.idle_seconds, 0);
        c.out_sent = 0;
        c.close_after_out = true;
        c.phase = Phase::answering;
        c.write_wait = IoWait::writable;
        c.deadline = Clock::now() + seconds(settings.write_seconds);
        release_body(c);
        if (handlers.answered) handlers.answered(c.request, response);
    }

    void refuse(Connection& c, int status, const std::string& reason) {
        refuse(c, handlers.refusal(status, reason));
    }

    void fill_request_head(Connection& c) {
        const HttpHead& head = c.reader.head();
        HttpRequest& request = c.request;
        request.method = head.method;
        request.target = head.target;
        request.minor_version = head.minor_version;
        request.fields = head.fields;
        const std::size_t question = head.target.find('?');
        request.path = head.target.substr(0, question);
        request.params.clear();
        if (question != std::string::npos) {
            for (auto& [key, value] :
                 parse_query(std::string_view(head.target).substr(question + 1))) {
                request.params.emplace(std::move(key), std::move(value));
            }
        }
    }

    // Moves a connection on after its reader changed state. Returns false when the
    // connection was closed.
    bool advance(Connection& c) {
        for (;;) {
            switch (c.reader.state()) {
                case HttpReadState::head:
                    return true;
                case HttpReadState::failed:
                    refuse(c, c.reader.failure().status, c.reader.failure().reason);
                    return true;
                case HttpReadState::head_done: {
                    fill_request_head(c);
                    std::optional<HttpResponse> refused;
                    try {
                        if (handlers.admit) refused = handlers.admit(c.request);
                    } catch (const std::exception& e) {
                        refused = handlers.refusal(500, e.what());
                    }
                    if (refused) {
                        refuse(c, std::move(*refused));
                        return true;
                    }
                    if (c.reader.body_expected()) {
                        const std::uint64_t declared = c.reader.content_length().value_or(0);
                        if (declared <= settings.limits.max_body_bytes &&
                            body_bytes_in_flight + declared > settings.max_body_bytes_in_flight) {
                            refuse(c, 503, "too many request bodies at once; try again");
                            return true;
                        }
                        if (declared <= settings.limits.max_body_bytes) {
                            c.reserved += declared;
                            body_bytes_in_flight += declared;
                        }
                        if (header_lists(c.request.header("Expect"), "100-continue")) {
                            c.out = "HTTP/1.1 100 Continue\r\n\r\n";
                            c.out_sent = 0;
                            c.write_wait = IoWait::writable;
                        }
                    }
                    c.reader.continue_body();
                    continue;
                }
                case HttpReadState::body:
                    if (!count_body(c))
                        refuse(c, 503, "too many request bodies at once; try again");
                    return true;
                case HttpReadState::done:
                    if (!count_body(c)) {
                        refuse(c, 503, "too many request bodies at once; try again");
                    } else {
                        dispatch(c);
                    }
                    return true;
            }
        }
    }

    // A body without a declared length (chunked) counts as it arrives; false when the
    // in-flight total would pass its bound.
    bool count_body(Connection& c) {
        const std::size_t have = c.reader.body().size();
        if (have <= c.reserved) return true;
        const std::size_t more = have - c.reserved;
        if (body_bytes_in_flight + more > settings.max_body_bytes_in_flight) return false;
        c.reserved += more;
        body_bytes_in_flight += more;
        return true;
    }

    void dispatch(Connection& c) {
        c.request.body = std::move(c.reader.body());
        c.leftover = c.reader.leftover();
        {
            std::lock_guard lock(queue_mutex);
            if (queue.size() >= settings.max_queued) {
                // Refused below, outside the lock.
            } else {
                c.phase = Phase::handling;
                arm(c);  // no events while a worker owns it
                queue.push_back(&c);
                queue_ready.notify_one();
                return;
            }
        }
        refuse(c, 503, "too many requests waiting; try again");
    }

    // Reads what the socket has, feeding the request reader. Returns false when the
    // connection was closed.
    bool read_some(Connection& c) {
        char buffer[kReadChunk];
        while (c.phase == Phase::reading && c.reader.state() != HttpReadState::done &&
               c.reader.state() != HttpReadState::failed) {
            const IoStep step = c.channel.read(buffer, sizeof buffer);
            if (step.failed) {
                close_connection(c);
                return false;
            }
            if (step.closed) {
                // A peer that closes between requests is done; one that closes in the
                // middle of one cannot read an answer either.
                close_connection(c);
                return false;
            }
            if (step.wait != IoWait::none) {
                c.read_wait = step.wait;
                break;
            }
            const bool was_started = c.request_started;
            c.reader.feed(std::string_view(buffer, step.bytes));
            if (!was_started && c.reader.started()) {
                c.request_started = true;
                if (c.served > 0) c.deadline = Clock::now() + seconds(settings.request_seconds);
            }
            if (!advance(c)) return false;
        }
        return true;
    }

    // Writes what the listener itself has to say. Returns false when closed.
    bool write_out(Connection& c) {
        while (c.out_sent < c.out.size()) {
            const IoStep step =
                c.channel.write(c.out.data() + c.out_sent, c.out.size() - c.out_sent);
            if (step.failed || step.closed) {
                close_connection(c);
                return false;
            }
            if (step.wait != IoWait::none) {
                c.write_wait = step.wait;
                return true;
            }
            c.out_sent += step.bytes;
        }
        c.out.clear();
        c.out_sent = 0;
        if (c.close_after_out && c.phase == Phase::answering) {
            c.channel.shutdown_write();
            c.phase = Phase::draining;
            c.deadline = Clock::now() + seconds(kDrainSeconds);
        }
        return true;
    }

    bool drain(Connection& c) {
        char buffer[kReadChunk];
        for (;;) {
            const IoStep step = c.channel.read(buffer, sizeof buffer);
            if (step.failed || step.closed) {
                close_connection(c);
                return false;
            }
            if (step.wait != IoWait::none) return true;
            c.drained += step.bytes;
            if (c.drained > kMaxDrainBytes) {
                close_connection(c);
                return false;
            }
        }
    }

    void on_event(Connection& c) {
        if (c.phase == Phase::handshake) {
            const IoStep step = c.channel.handshake();
            if (step.failed) {
                close_connection(c);
                return;
            }
            if (step.wait != IoWait::none) {
                c.read_wait = step.wait;
                arm(c);
                return;
            }
            if (c.shed) {
                refuse(c, 503, "too many connections; try again");
            } else {
                c.phase = Phase::reading;
                c.read_wait = IoWait::readable;
            }
        }
        if (c.phase == Phase::reading && c.out_sent < c.out.size() && !write_out(c)) return;
        if (c.phase == Phase::reading && !read_some(c)) return;
        // A 100 Continue the request just asked for.
        if (c.phase == Phase::reading && c.out_sent < c.out.size() && !write_out(c)) return;
        if (c.phase == Phase::answering && !write_out(c)) return;
        if (c.phase == Phase::draining && !drain(c)) return;
        if (c.phase != Phase::handling) arm(c);
    }

    void shed_at_once(int fd) {
        if (!tls) {
            const std::string answer = serialize_response(
                handlers.refusal(503, "too many connections; try again"), false, false, 0, 0);
            [[maybe_unused]] const ssize_t n =
                ::send(fd, answer.data(), answer.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        }
        ::close(fd);
    }

    // Takes the connections waiting, a batch at a time: a client that reconnects as fast
    // as it is answered must not keep the loop from the workers' finished connections.
    void accept_all() {
        for (int batch = 0; batch < kAcceptBatch; ++batch) {
            take_returned();  // a finished connection frees its place first
            sockaddr_storage remote{};
            socklen_t length = sizeof remote;
            const int fd = ::accept4(listen_fd.get(), reinterpret_cast<sockaddr*>(&remote), &length,
                                     SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (fd < 0) {
                if (errno == EINTR || errno == ECONNABORTED) continue;
                if ((errno == EMFILE || errno == ENFILE) && spare_fd.get() >= 0) {
                    // Out of descriptors: the spare one makes room to take the
                    // connection off the queue and close it, so the listener does not spin.
                    spare_fd.reset();
                    const int dropped = ::accept4(listen_fd.get(), nullptr, nullptr, SOCK_CLOEXEC);
                    if (dropped >= 0) ::close(dropped);
                    spare_fd.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
                    continue;
                }
                return;  // EAGAIN, or an error the next readiness will show again
            }
            if (stopping || live_connections() >= 2 * settings.max_connections) {
                shed_at_once(fd);
                continue;
            }
            auto channel = SocketChannel::open(fd, tls ? &*tls : nullptr, true);
            if (!channel) continue;  // it closed fd
            auto connection = std::make_unique<Connection>(std::move(*channel), settings.limits);
            Connection& c = *connection;
            describe_address(remote, c.remote_address, c.remote_port);
            sockaddr_storage local{};
            socklen_t local_length = sizeof local;
            if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_length) == 0) {
                describe_address(local, c.local_address, c.local_port);
            }
            c.next_request(settings.limits);
            c.shed = live_connections() >= settings.max_connections;
            c.deadline = Clock::now() + seconds(c.shed ? kDrainSeconds : settings.request_seconds);
            c.phase = tls ? Phase::handshake : Phase::reading;
            connections.emplace(fd, std::move(connection));
            if (c.shed && !tls) {
                refuse(c, 503, "too many connections; try again");
                if (write_out(c)) arm(c);
                continue;
            }
            on_event(c);
        }
    }

    std::size_t live_connections() const {
        return connections.size() - std::min(connections.size(), finishing.load());
    }

    void take_returned() {
        std::vector<Connection*> back;
        {
            std::lock_guard lock(queue_mutex);
            back.swap(returned);
        }
        for (Connection* c : back) {
            release_body(*c);
            ++c->served;
            if (c->counted_out) {
                c->counted_out = false;
                finishing.fetch_sub(1);
            }
            if (!c->answer_written || !c->keep_alive || stopping) {
                close_connection(*c);
                continue;
            }
            // Ready for the next request on this connection.
            const std::string leftover = std::move(c->leftover);
            c->next_request(settings.limits);
            c->phase = Phase::reading;
            c->read_wait = IoWait::readable;
            c->request_started = false;
            c->deadline = Clock::now() + seconds(settings.idle_seconds);
            if (!leftover.empty()) {
                c->request_started = true;
                c->deadline = Clock::now() + seconds(settings.request_seconds);
                c->reader.feed(leftover);
                if (!advance(*c)) continue;
            }
            on_event(*c);  // also reads what TLS already decrypted
        }
    }

    void expire(Clock::time_point now) {
        std::vector<Connection*> late;
        for (auto& [fd, c] : connections) {
            if (c->phase != Phase::handling && now >= c->deadline) late.push_back(c.get());
        }
        for (Connection* c : late) {
            if (c->phase == Phase::reading && c->request_started && c->out.empty()) {
                refuse(*c, 408, "the request took too long");
                if (write_out(*c)) arm(*c);
            } else {
                close_connection(*c);
            }
        }
    }

    int wait_milliseconds(Clock::time_point now) const {
        Clock::time_point next = now + std::chrono::seconds(1);
        for (const auto& [fd, c] : connections) {
            if (c->phase != Phase::handling) next = std::min(next, c->deadline);
        }
        const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count();
        return static_cast<int>(std::clamp<long long>(wait + 1, 0, 1000));
    }

    // --- workers -------------------------------------------------------------------

    void work() {
        for (;;) {
            Connection* c = nullptr;
            {
                std::unique_lock lock(queue_mutex);
                queue_ready.wait(lock, [&] { return queue_closed || !queue.empty(); });
                if (queue.empty()) return;
                c = queue.front();
                queue.pop_front();
            }
            HttpRequest request = std::move(c->request);
            HttpResponse response = answer(*c, request);
            // The connection goes back before `answered` runs: a callback that waits (the
            // agent counts responses under the lock its metrics are rendered under) must
            // not keep a finished connection counted against the cap.
            {
                std::lock_guard lock(queue_mutex);
                returned.push_back(c);
            }
            wake();
            request.body.clear();
            request.body.shrink_to_fit();
            if (handlers.answered) handlers.answered(request, response);
        }
    }

    // Handles `request` (taken from `c`) and writes the answer on `c`.
    HttpResponse answer(Connection& c, const HttpRequest& request) {
        HttpResponse response;
        try {
            response = handlers.handle(request);
        } catch (const std::exception& e) {
            response = handlers.refusal(500, e.what());
        }
        const std::size_t left = settings.max_requests_per_connection -
                                 std::min(settings.max_requests_per_connection, c.served + 1);
        c.keep_alive = !response.close && c.reader.head().keep_alive() && left > 0 && !stopping;
        if (!c.keep_alive) {
            c.counted_out = true;
            finishing.fetch_add(1);
        }
        const std::string wire = serialize_response(
            response, c.keep_alive, request.method == "HEAD", settings.idle_seconds, left);
        c.answer_written =
            write_within(c.channel, wire, Clock::now() + seconds(settings.write_seconds));
        return response;
    }

    static bool write_within(SocketChannel& channel, std::string_view data,
                             Clock::time_point deadline) {
        std::size_t sent = 0;
        while (sent < data.size()) {
            const IoStep step = channel.write(data.data() + sent, data.size() - sent);
            if (step.failed || step.closed) return false;
            if (step.bytes > 0) {
                sent += step.bytes;
                continue;
            }
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now())
                    .count();
            if (left <= 0) return false;
            pollfd p{channel.fd(),
                     static_cast<short>(step.wait == IoWait::readable ? POLLIN : POLLOUT), 0};
            if (::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000))) < 0 &&
                errno != EINTR) {
                return false;
            }
        }
        return true;
    }

    // --- the loop --------------------------------------------------------------------

    void serve() {
        workers.clear();
        for (std::size_t i = 0; i < std::max<std::size_t>(1, settings.workers); ++i) {
            workers.emplace_back([this] { work(); });
        }
        epoll_event listen_event{};
        listen_event.events = EPOLLIN;
        listen_event.data.fd = listen_fd.get();
        epoll_ctl(epoll_fd.get(), EPOLL_CTL_ADD, listen_fd.get(), &listen_event);
        epoll_event wake_event{};
        wake_event.events = EPOLLIN;
        wake_event.data.fd = wake_fd.get();
        epoll_ctl(epoll_fd.get(), EPOLL_CTL_ADD, wake_fd.get(), &wake_event);

        std::array<epoll_event, 64> events{};
        while (!stopping) {
            const int ready =
                epoll_wait(epoll_fd.get(), events.data(), static_cast<int>(events.size()),
                           wait_milliseconds(Clock::now()));
            if (ready < 0 && errno != EINTR) break;
            for (int i = 0; i < std::max(ready, 0); ++i) {
                const int fd = events[static_cast<std::size_t>(i)].data.fd;
                if (fd == listen_fd.get()) {
                    accept_all();
                } else if (fd == wake_fd.get()) {
                    std::uint64_t count = 0;
                    [[maybe_unused]] const ssize_t n = ::read(wake_fd.get(), &count, sizeof count);
                    take_returned();
                } else if (auto found = connections.find(fd); found != connections.end()) {
                    on_event(*found->second);
                }
            }
            take_returned();  // what the workers finished meanwhile (cheap when none)
            expire(Clock::now());
        }
        // Stop: no new connection; what the workers hold is answered (keep-alive off).
        epoll_ctl(epoll_fd.get(), EPOLL_CTL_DEL, listen_fd.get(), nullptr);
        listen_fd.reset();
        {
            std::lock_guard lock(queue_mutex);
            queue_closed = true;
        }
        queue_ready.notify_all();
        for (std::thread& worker : workers) worker.join();
        workers.clear();
        returned.clear();
        connections.clear();
        body_bytes_in_flight = 0;
    }
};

HttpListener::HttpListener(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpListener::~HttpListener() = default;

int HttpListener::port() const {
    return impl_->port;
}

bool HttpListener::tls() const {
    return impl_->tls.has_value();
}

void HttpListener::serve() {
    impl_->serve();
}

void HttpListener::stop() {
    impl_->stopping = true;
    impl_->wake();
}

Result<std::unique_ptr<HttpListener>> HttpListener::open(HttpListenerSettings settings,
                                                         HttpHandlers handlers) {
    if (!handlers.handle || !handlers.refusal) {
        return fail(ErrorCategory::internal, "an HTTP listener needs a handler and a refusal");
    }
    if (settings.max_connections == 0 || settings.workers == 0 || settings.max_queued == 0) {
        return fail(ErrorCategory::invalid_input,
                    "connections, workers and queue must be at least 1");
    }
    auto impl = std::make_unique<Impl>();
    impl->settings = std::move(settings);
    impl->handlers = std::move(handlers);
    const HttpListenerSettings& s = impl->settings;
    if (s.tls) {
        auto tls = TlsContext::server(s.tls->certificate, s.tls->key, s.tls->client_ca);
        if (!tls) return std::unexpected(tls.error());
        impl->tls = std::move(*tls);
    }

    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    addrinfo* found = nullptr;
    const std::string port_text = std::to_string(s.port);
    if (const int rc = getaddrinfo(s.host.c_str(), port_text.c_str(), &hints, &found); rc != 0) {
        return fail(ErrorCategory::unavailable,
                    fmt::format("cannot listen on {}:{}: {}", s.host, s.port, gai_strerror(rc)));
    }
    int error = 0;
    for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
        const int fd =
            ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            error = errno;
            continue;
        }
        const int yes = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
        if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, SOMAXCONN) == 0) {
            impl->listen_fd.reset(fd);
            break;
        }
        error = errno;
        ::close(fd);
    }
    freeaddrinfo(found);
    if (impl->listen_fd.get() < 0) {
        return fail(ErrorCategory::unavailable,
                    fmt::format("cannot listen on {}:{}: {}", s.host, s.port,
                                error != 0 ? std::strerror(error) : "bind failed"));
    }
    sockaddr_storage bound{};
    socklen_t length = sizeof bound;
    ::getsockname(impl->listen_fd.get(), reinterpret_cast<sockaddr*>(&bound), &length);
    std::string bound_host;
    std::uint16_t bound_port = 0;
    describe_address(bound, bound_host, bound_port);
    impl->port = bound_port;

    impl->epoll_fd.reset(epoll_create1(EPOLL_CLOEXEC));
    impl->wake_fd.reset(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
    impl->spare_fd.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (impl->epoll_fd.get() < 0 || impl->wake_fd.get() < 0) {
        return fail("cannot start the listener's event loop", errno);
    }
    return std::unique_ptr<HttpListener>(new HttpListener(std::move(impl)));
}

}  // namespace gpukill::net

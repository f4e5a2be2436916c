#include "fleet/agent_transport.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <arpa/inet.h>

#include <fmt/format.h>

#include <chrono>
#include <cmath>

#include "fleet/inventory.hpp"
#include "fleet/reply_document.hpp"
#include "model/human_format.hpp"
#include "net/access.hpp"
#include "net/http_client.hpp"

namespace gpukill::fleet {
namespace {

using Clock = std::chrono::steady_clock;

bool is_address_literal(const std::string& host) {
    unsigned char buffer[sizeof(in6_addr)];
    return inet_pton(AF_INET, host.c_str(), buffer) == 1 ||
           inet_pton(AF_INET6, host.c_str(), buffer) == 1;
}

int exit_code_of_document(const nlohmann::ordered_json& doc) {
    if (!doc.is_object()) return 0;
    if (auto it = doc.find("exit_code"); it != doc.end() && it->is_number_integer()) {
        return it->get<int>();
    }
    if (auto it = doc.find("verdict"); it != doc.end() && it->is_string()) {  // check
        const std::string verdict = it->get<std::string>();
        return verdict == "clean" ? 0 : verdict == "problem" ? 1 : 2;
    }
    if (auto it = doc.find("findings"); it != doc.end() && it->is_array()) {  // rogue
        return it->empty() ? 0 : 9;
    }
    return 0;
}

std::string transport_error(const std::string& url, const net::HttpClientError& error) {
    switch (error.kind) {
        case net::HttpClientFailure::tls_verification:
            return fmt::format(
                "{}: the agent's certificate could not be verified ({}): refused "
                "(give its CA with --agent-ca)",
                url, error.detail);
        case net::HttpClientFailure::cannot_connect:
            return fmt::format("{}: cannot connect ({})", url, error.detail);
        case net::HttpClientFailure::connect_timeout:
            return fmt::format("{}: connection timed out (--connect-timeout)", url);
        case net::HttpClientFailure::timeout:
            return fmt::format("{}: no complete answer within --command-timeout", url);
        case net::HttpClientFailure::tls_handshake:
            return fmt::format("{}: TLS handshake failed ({})", url, error.detail);
        case net::HttpClientFailure::cancelled:
            return fmt::format("{}: interrupted", url);
        case net::HttpClientFailure::too_large:
            return fmt::format("{}: the answer is too large ({})", url, error.detail);
        case net::HttpClientFailure::malformed:
            return fmt::format("{}: not an HTTP answer ({})", url, error.detail);
    }
    return url;
}

}  // namespace

Result<std::string> read_token_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return fail(fmt::format("cannot read token file {}", path), errno);
    struct stat st {};
    std::string token;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return fail(ErrorCategory::invalid_input, fmt::format("{}: not a regular file", path));
    }
    if ((st.st_mode & 0077) != 0) {
        close(fd);
        return fail(ErrorCategory::permission,
                    fmt::format("{}: readable or writable by others (mode {:o}): refused; chmod "
                                "600 it",
                                path, st.st_mode & 0777));
    }
    char buffer[4096];
    ssize_t n = 0;
    while ((n = read(fd, buffer, sizeof buffer)) > 0 && token.size() < 65536) {
        token.append(buffer, static_cast<std::size_t>(n));
    }
    close(fd);
    while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
    if (token.empty() || token.find_first_of("\r\n") != std::string::npos) {
        return fail(ErrorCategory::invalid_input,
                    fmt::format("{}: expected one line holding the token", path));
    }
    return token;
}

Result<std::string> agent_base_url(const std::string& host, const AgentOptions& options) {
    auto address = parse_host_address(host);
    if (!address) return std::unexpected(address.error());
    if (options.scheme != "https" && options.scheme != "http") {
        return fail(ErrorCategory::invalid_input, "--agent-scheme is https or http");
    }
    // A literal is judged here; a name when it is resolved (request()), on its addresses.
    if (options.scheme == "http" && is_address_literal(address->host) &&
        !net::is_loopback_address(address->host)) {
        return fail(ErrorCategory::refused,
                    fmt::format("{}: plain http only to a loopback address (the token would "
                                "cross the network in clear): use https",
                                host));
    }
    const std::string shown =
        address->host.find(':') != std::string::npos ? "[" + address->host + "]" : address->host;
    return fmt::format("{}://{}:{}", options.scheme, shown,
                       address->port.value_or(options.default_port));
}

int exit_code_for_category(const std::string& category, int http_status) {
    if (category == "invalid_input" || category == "not_found") return 3;
    if (category == "permission") return 4;
    if (category == "unsupported") return 5;
    if (category.empty()) {
        if (http_status == 401 || http_status == 403) return 4;
        if (http_status == 400 || http_status == 404) return 3;
        if (http_status == 501) return 5;
    }
    return 1;  // refused, conflict, unavailable, internal
}

HostReply agent_reply(int http_status, const std::string& body) {
    HostReply reply;
    auto parsed = read_reply_document(body);
    reply.result = parsed ? std::move(*parsed) : nlohmann::ordered_json();
    if (http_status >= 200 && http_status < 300) {
        if (!parsed || reply.result.is_null()) {
            reply.status = HostStatus::failed;
            reply.exit_code = 1;
            reply.error = parsed ? "the agent answered with no JSON document"
                                 : "the agent's answer is not usable: " + parsed.error();
            return reply;
        }
        if (auto problem = reply_shape_problem(reply.result)) {
            reply.result = nullptr;
            reply.status = HostStatus::failed;
            reply.exit_code = 1;
            reply.error = "the agent's answer is malformed: " + *problem;
            return reply;
        }
        reply.exit_code = exit_code_of_document(reply.result);
        reply.status = reply.exit_code == 0 ? HostStatus::ok : HostStatus::failed;
        return reply;
    }
    std::string category;
    std::string message = fmt::format("HTTP {}", http_status);
    if (reply.result.is_object() && !reply_shape_problem(reply.result)) {
        if (auto error = reply.result.find("error");
            error != reply.result.end() && error->is_object()) {
            if (auto it = error->find("category"); it != error->end() && it->is_string()) {
                category = it->get<std::string>();
            }
            if (auto it = error->find("message"); it != error->end() && it->is_string()) {
                message = it->get<std::string>();
            }
        }
    } else {
        reply.result = nullptr;  // an error answer of the wrong shape: only its status counts
    }
    if (http_status == 401) message = "the agent refused the token (HTTP 401): " + message;
    reply.status = HostStatus::failed;
    reply.exit_code = exit_code_for_category(category, http_status);
    reply.error = message;
    return reply;
}

Result<std::unique_ptr<AgentTransport>> AgentTransport::open(AgentOptions options) {
    if (!options.token_file) {
        return fail(ErrorCategory::invalid_input,
                    "--transport agent needs --token-file FILE (the agent's bearer token)");
    }
    auto token = read_token_file(*options.token_file);
    if (!token) return std::unexpected(token.error());
    std::optional<net::TlsContext> tls;
    if (options.scheme == "https") {
        auto context = net::TlsContext::client(options.ca_file);
        if (!context) return std::unexpected(context.error());
        tls = std::move(*context);
    }
    return std::unique_ptr<AgentTransport>(
        new AgentTransport(std::move(options), *token, std::move(tls)));
}

AgentTransport::AgentTransport(AgentOptions options, std::string token,
                               std::optional<net::TlsContext> tls)
    : options_(std::move(options)), token_(std::move(token)), tls_(std::move(tls)) {}

HostReply AgentTransport::request(const std::string& host, const std::string& method,
                                  const std::string& path, const std::optional<std::string>& body,
                                  Deadline deadline, bool acts) {
    HostReply reply;
    reply.status = HostStatus::unreachable;
    reply.exit_code = kUnreachableExit;
    auto url = agent_base_url(host, options_);
    if (!url) {
        reply.error = url.error().what;
        return reply;
    }
    const std::string shown = printable(*url);
    auto address = parse_host_address(host);
    const unsigned port = address->port.value_or(options_.default_port);
    auto resolved = net::resolve_host(address->host, port);
    if (!resolved) {
        reply.error = fmt::format("{}: {}", shown, resolved.error().what);
        return reply;
    }
    if (options_.scheme == "http") {
        // Plain HTTP carries the token in clear: only where every address is loopback.
        for (const net::ResolvedAddress& a : *resolved) {
            if (!a.loopback) {
                reply.error = fmt::format(
                    "{}: plain http only to a loopback address, and {} resolves to {} (the "
                    "token would cross the network in clear): use https",
                    shown, printable(address->host), a.text);
                return reply;
            }
        }
    }
    net::HttpClientRequest http{
        .method = method,
        .target = path,
        .host_header = url->substr(url->find("://") + 3),
        .headers = {{"Authorization", "Bearer " + token_}, {"Accept", "application/json"}},
        .body = std::nullopt};
    if (method == "POST") {
        http.body = body.value_or("{}");
        http.headers.push_back({"Content-Type", "application/json"});
    }
    net::HttpClientSettings settings;
    settings.tls = tls_ ? &*tls_ : nullptr;
    settings.server_name = address->host;
    settings.deadline = deadline;
    settings.connect_seconds = options_.connect_timeout_seconds;
    settings.limits.max_body_bytes = options_.max_reply_bytes;
    // An action in flight finishes (within the deadline) so its report is kept; a read
    // stops at once.
    if (!acts) settings.cancelled = options_.interrupted;
    auto answer = net::http_exchange(*resolved, http, settings);
    if (!answer) {
        reply.error = transport_error(shown, answer.error());
        if (answer.error().kind == net::HttpClientFailure::cancelled) {
            reply.status = HostStatus::not_run;
            reply.exit_code = 130;
        } else if (answer.error().kind == net::HttpClientFailure::too_large ||
                   answer.error().kind == net::HttpClientFailure::malformed) {
            reply.status = HostStatus::failed;
            reply.exit_code = 1;
        }
        return reply;
    }
    return agent_reply(answer->status, answer->body);
}

std::optional<HostReply> AgentTransport::check_version(const std::string& host, Deadline deadline) {
    {
        std::lock_guard lock(mutex_);
        if (checked_.contains(host)) return std::nullopt;
    }
    HostReply reply = request(host, "GET", "/v1/version", std::nullopt, deadline, false);
    if (reply.status == HostStatus::unreachable || reply.status == HostStatus::not_run)
        return reply;
    if (reply.status != HostStatus::ok) {
        reply.status = reply.exit_code == 4 ? HostStatus::failed : HostStatus::incompatible;
        reply.exit_code = reply.exit_code == 4 ? 4 : kUnreachableExit;
        reply.error =
            fmt::format("{}: /v1/version: {}", printable(host), reply.error.value_or("failed"));
        return reply;
    }
    std::string version;
    if (auto it = reply.result.find("version"); it != reply.result.end() && it->is_string()) {
        version = it->get<std::string>();
    }
    if (!version_at_least(version, kMinimumRemoteVersion)) {
        reply.status = HostStatus::incompatible;
        reply.exit_code = kUnreachableExit;
        reply.error = fmt::format("{}: agent version '{}' is too old (fleet needs {} or later)",
                                  printable(host), printable(version), kMinimumRemoteVersion);
        reply.result = nullptr;
        return reply;
    }
    std::lock_guard lock(mutex_);
    checked_.insert(host);
    return std::nullopt;
}

HostReply AgentTransport::call(const std::string& host, const RemoteCall& call) {
    const auto start = Clock::now();
    // One deadline for the version check and the call: --command-timeout is the most a
    // host can take, however it answers.
    const Deadline deadline =
        start + std::chrono::duration_cast<Clock::duration>(
                    std::chrono::duration<double>(options_.command_timeout_seconds));
    HostReply reply;
    if (call.http_path.empty()) {
        reply.status = HostStatus::failed;
        reply.exit_code = 5;
        reply.error = "not offered by the agent's API (use --transport ssh)";
        return reply;
    }
    if (auto refused = check_version(host, deadline)) {
        refused->seconds = std::chrono::duration<double>(Clock::now() - start).count();
        return *refused;
    }
    std::optional<std::string> body;
    if (call.http_body) body = call.http_body->dump();
    reply = request(host, call.http_method, call.http_path, body, deadline, call.acts);
    reply.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return reply;
}

}  // namespace gpukill::fleet

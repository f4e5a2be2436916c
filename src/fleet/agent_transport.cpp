#include "fleet/agent_transport.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <httplib.h>

#include <chrono>
#include <cmath>

#include "fleet/inventory.hpp"

namespace gpukill::fleet {
namespace {

bool is_loopback(const std::string& host) {
    return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
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

std::string transport_error(const std::string& url, httplib::Error error) {
    switch (error) {
        case httplib::Error::SSLServerVerification:
            return fmt::format(
                "{}: the agent's certificate could not be verified: refused "
                "(give its CA with --agent-ca)",
                url);
        case httplib::Error::Connection:
            return fmt::format("{}: cannot connect", url);
        case httplib::Error::ConnectionTimeout:
            return fmt::format("{}: connection timed out (--connect-timeout)", url);
        case httplib::Error::Read:
            return fmt::format("{}: no complete answer (--command-timeout)", url);
        case httplib::Error::SSLConnection:
            return fmt::format("{}: TLS handshake failed", url);
        default:
            return fmt::format("{}: {}", url, httplib::to_string(error));
    }
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
    if (options.scheme == "http" && !is_loopback(address->host)) {
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
    try {
        reply.result = nlohmann::ordered_json::parse(body);
    } catch (const nlohmann::json::exception&) {
        reply.result = nullptr;
    }
    if (http_status >= 200 && http_status < 300) {
        if (reply.result.is_null()) {
            reply.status = HostStatus::failed;
            reply.exit_code = 1;
            reply.error = "the agent answered with no JSON document";
            return reply;
        }
        reply.exit_code = exit_code_of_document(reply.result);
        reply.status = reply.exit_code == 0 ? HostStatus::ok : HostStatus::failed;
        return reply;
    }
    std::string category;
    std::string message = fmt::format("HTTP {}", http_status);
    if (reply.result.is_object() && reply.result.contains("error") &&
        reply.result["error"].is_object()) {
        const auto& error = reply.result["error"];
        if (error.contains("category") && error["category"].is_string()) {
            category = error["category"].get<std::string>();
        }
        if (error.contains("message") && error["message"].is_string()) {
            message = error["message"].get<std::string>();
        }
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
    return std::unique_ptr<AgentTransport>(new AgentTransport(std::move(options), *token));
}

AgentTransport::AgentTransport(AgentOptions options, std::string token)
    : options_(std::move(options)), token_(std::move(token)) {}

HostReply AgentTransport::request(const std::string& host, const std::string& method,
                                  const std::string& path, const std::optional<std::string>& body,
                                  double timeout_seconds) {
    HostReply reply;
    reply.status = HostStatus::unreachable;
    reply.exit_code = kUnreachableExit;
    auto url = agent_base_url(host, options_);
    if (!url) {
        reply.error = url.error().what;
        return reply;
    }
    httplib::Client client(*url);
    client.enable_server_certificate_verification(true);
    if (options_.ca_file) client.set_ca_cert_path(*options_.ca_file);
    const auto split = [](double seconds, time_t& whole, time_t& micro) {
        whole = static_cast<time_t>(seconds);
        micro = static_cast<time_t>((seconds - std::floor(seconds)) * 1e6);
    };
    time_t s = 0, us = 0;
    split(options_.connect_timeout_seconds, s, us);
    client.set_connection_timeout(s, us);
    split(timeout_seconds, s, us);
    client.set_read_timeout(s, us);
    client.set_write_timeout(s, us);
    client.set_bearer_token_auth(token_);
    client.set_keep_alive(false);
    httplib::Result answer = method == "POST"
                                 ? client.Post(path, body.value_or("{}"), "application/json")
                                 : client.Get(path);
    if (!answer) {
        reply.error = transport_error(*url, answer.error());
        return reply;
    }
    return agent_reply(answer->status, answer->body);
}

std::optional<HostReply> AgentTransport::check_version(const std::string& host) {
    {
        std::lock_guard lock(mutex_);
        if (checked_.contains(host)) return std::nullopt;
    }
    HostReply reply = request(host, "GET", "/v1/version", std::nullopt, 30);
    if (reply.status == HostStatus::unreachable) return reply;
    if (reply.status != HostStatus::ok) {
        reply.status = reply.exit_code == 4 ? HostStatus::failed : HostStatus::incompatible;
        reply.exit_code = reply.exit_code == 4 ? 4 : kUnreachableExit;
        reply.error = fmt::format("{}: /v1/version: {}", host, reply.error.value_or("failed"));
        return reply;
    }
    std::string version;
    if (reply.result.contains("version") && reply.result["version"].is_string()) {
        version = reply.result["version"].get<std::string>();
    }
    if (!version_at_least(version, kMinimumRemoteVersion)) {
        reply.status = HostStatus::incompatible;
        reply.exit_code = kUnreachableExit;
        reply.error = fmt::format("{}: agent version '{}' is too old (fleet needs {} or later)",
                                  host, version, kMinimumRemoteVersion);
        reply.result = nullptr;
        return reply;
    }
    std::lock_guard lock(mutex_);
    checked_.insert(host);
    return std::nullopt;
}

HostReply AgentTransport::call(const std::string& host, const RemoteCall& call) {
    const auto start = std::chrono::steady_clock::now();
    HostReply reply;
    if (call.http_path.empty()) {
        reply.status = HostStatus::failed;
        reply.exit_code = 5;
        reply.error = "not offered by the agent's API (use --transport ssh)";
        return reply;
    }
    if (auto refused = check_version(host)) return *refused;
    std::optional<std::string> body;
    if (call.http_body) body = call.http_body->dump();
    reply = request(host, call.http_method, call.http_path, body, options_.command_timeout_seconds);
    reply.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return reply;
}

}  // namespace gpukill::fleet

#include "cli/mcp_command.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>

#include "cli/diagnostics.hpp"
#include "cli/engine_session.hpp"
#include "engine/outcome_codes.hpp"
#include "mcp/http_transport.hpp"
#include "mcp/server.hpp"
#include "mcp/stdio_transport.hpp"
#include "model/human_format.hpp"
#include "sys/interrupt.hpp"

namespace gpukill::cli {
namespace {

struct ListenAddress {
    std::string host;
    int port = 0;
};

std::optional<ListenAddress> parse_listen(const std::string& text) {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0) return std::nullopt;
    std::string host = text.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
        host = host.substr(1, host.size() - 2);
    }
    const std::string port = text.substr(colon + 1);
    if (port.empty() || port.size() > 5 ||
        port.find_first_not_of("0123456789") != std::string::npos) {
        return std::nullopt;
    }
    const int number = std::stoi(port);
    if (number > 65535) return std::nullopt;
    return ListenAddress{host, number};
}

int serve_http(mcp::Server& server, const McpOptions& options) {
    auto address = parse_listen(options.listen);
    if (!address) {
        return usage_error(
            fmt::format("--listen {}: give ADDR:PORT (127.0.0.1:9440; port 0 picks one)",
                        printable(options.listen)));
    }
    mcp::HttpOptions http;
    http.address = address->host;
    http.port = address->port;
    http.allowed_hosts = options.allowed_hosts;
    http.max_sessions = options.max_sessions;
    if (options.token_file) {
        auto tokens = net::TokenSet::load(*options.token_file);
        if (!tokens) return report_error(tokens.error());
        http.tokens = std::move(*tokens);
    }
    if (options.allow_actions && !http.tokens) {
        return usage_error(
            "--allow-actions over --http needs --token-file: anything that can "
            "act over a network needs authentication");
    }
    if (!net::is_loopback_address(http.address) && !http.tokens) {
        return usage_error(fmt::format("--listen {} is not loopback: give --token-file",
                                       printable(options.listen)));
    }
    mcp::HttpTransport transport(server, http);
    // SIGINT and SIGTERM end the server cleanly: blocked here (the server's threads
    // inherit the mask) and waited for by one thread, which stops the listener.
    sigset_t stopping;
    sigemptyset(&stopping);
    sigaddset(&stopping, SIGINT);
    sigaddset(&stopping, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stopping, nullptr);
    std::thread waiter([&] {
        int caught = 0;
        sigwait(&stopping, &caught);
        transport.stop();
    });
    std::string error;
    const int code = transport.serve(
        [&](int port) {
            std::fprintf(stderr, "gpukill mcp: listening on http://%s:%d/mcp%s\n",
                         address->host.find(':') != std::string::npos
                             ? ("[" + address->host + "]").c_str()
                             : address->host.c_str(),
                         port, options.allow_actions ? " (actions allowed)" : " (read-only)");
            std::fflush(stderr);
        },
        error);
    if (code != 0) {
        // Nothing was served: wake the waiter so it can end.
        pthread_kill(waiter.native_handle(), SIGTERM);
    }
    waiter.join();
    if (code != 0) return print_error(error, exit_code::failure);
    return exit_code::ok;
}

}  // namespace

int run_mcp(const GlobalOptions& global, const McpOptions& options) {
    if (!(std::isfinite(options.plan_validity_seconds) && options.plan_validity_seconds >= 1 &&
          options.plan_validity_seconds <= 3600)) {
        return usage_error("--plan-validity must be 1 to 3600 seconds");
    }
    if (options.max_sessions < 1 || options.max_sessions > 4096) {
        return usage_error("--max-sessions must be 1 to 4096");
    }
    if (!options.http && (options.token_file || !options.allowed_hosts.empty())) {
        return usage_error("--token-file and --allowed-host apply to --http");
    }
    const auto plan_validity =
        std::chrono::seconds(static_cast<long>(std::lround(options.plan_validity_seconds)));
    // A plan the server shows may be confirmed for as long as the server keeps it.
    engine::EngineConfig config = engine_config(global);
    config.plan_confirmation_window = plan_validity;
    auto engine = engine::Engine::open(std::move(config));
    if (!engine) return report_error(engine.error());
    mcp::Server server(
        **engine, mcp::ServerOptions{.allow_actions = options.allow_actions,
                                     .plan_validity = plan_validity,
                                     .server_version = GPUKILL_VERSION,
                                     .interrupted = [] { return InterruptCatcher::caught(); }});
    if (options.http) return serve_http(server, options);
    // SIGINT, SIGTERM and SIGHUP end the session cleanly (exit 0): the wait for input at
    // once; a kill in progress stops waiting, records what it sent and is answered first.
    const InterruptCatcher stopping;
    std::fprintf(stderr, "gpukill mcp: serving MCP on stdio%s\n",
                 options.allow_actions ? " (actions allowed)" : " (read-only)");
    std::fflush(stderr);
    const int served = mcp::serve_stdio(server, STDIN_FILENO, stdout);
    if (InterruptCatcher::caught()) {
        std::fprintf(stderr, "gpukill mcp: SIG%s: stopped\n",
                     sigabbrev_np(InterruptCatcher::signal_caught()));
    }
    return served == 0 ? exit_code::ok : exit_code::failure;
}

}  // namespace gpukill::cli

#include "cli/agent_command.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "agent/agent_loop.hpp"
#include "cli/diagnostics.hpp"
#include "cli/engine_session.hpp"
#include "engine/guard.hpp"
#include "engine/outcome_codes.hpp"
#include "model/quoted_text.hpp"
#include "net/access.hpp"

namespace gpukill::cli {
namespace {

// One line per event on stderr, unbuffered: journald stamps and keeps each.
void log_line(const std::string& line) {
    std::fprintf(stderr, "gpukill agent: %s\n", line.c_str());
    std::fflush(stderr);
}

}  // namespace

int run_agent_command(const GlobalOptions& global, const AgentCommandOptions& options,
                      const std::vector<std::string>& argv) {
    if (options.no_guard && options.policy)
        return usage_error("give --policy or --no-guard, not both");
    auto listen = agent::parse_listen_address(options.listen);
    if (!listen) return usage_error(listen.error().what);
    if (!(options.request_timeout_seconds >= 0.1 && options.request_timeout_seconds <= 3600)) {
        return usage_error("--request-timeout must be between 0.1 and 3600 seconds");
    }
    if (options.max_connections == 0 || options.max_connections > 4096) {
        return usage_error("--max-connections must be between 1 and 4096");
    }
    agent::AgentOptions settings;
    settings.server =
        agent::ServerSettings{.listen = *listen,
                              .tls_cert = options.tls_cert,
                              .tls_key = options.tls_key,
                              .tls_client_ca = options.tls_client_ca,
                              .insecure_listen = options.insecure_listen,
                              .tokens = std::nullopt,
                              .allowed_hosts = options.allowed_hosts,
                              .request_timeout_seconds = options.request_timeout_seconds,
                              .max_connections = options.max_connections,
                              .max_body_bytes = 64 * 1024};
    if (options.token_file) {
        auto tokens = net::TokenSet::load(*options.token_file);
        if (!tokens) return report_error(tokens.error());
        settings.server.tokens = std::move(*tokens);
    }
    settings.interval_seconds = options.interval_seconds;
    settings.rogue_interval_seconds = options.rogue_interval_seconds;
    settings.metrics = agent::MetricsOptions{.top_processes = options.metrics_top,
                                             .dcgm_names = options.dcgm_names,
                                             .lowercase_hostname = options.lowercase_hostname};

    // The guard: --policy FILE (must load), else CONFIG_DIR/guard.yaml when it exists.
    const std::string default_policy = engine::default_policy_path(engine_config(global));
    const bool guarding =
        !options.no_guard && (options.policy || std::filesystem::exists(default_policy));
    if (guarding) {
        settings.guard =
            engine::GuardSetup{.policy_path = options.policy, .command = shell_join(argv)};
        settings.guard_actor = command_line_actor(Interface::guard);
    }
    auto engine = open_engine(global);
    if (!engine) return engine.error();
    auto ran = agent::run_agent(std::move(*engine), std::move(settings), log_line);
    if (!ran) return report_error(ran.error());
    return exit_code::ok;
}

}  // namespace gpukill::cli

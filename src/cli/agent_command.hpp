// `gpukill agent`: the per-host daemon (src/agent): /metrics for Prometheus, the /v1
// JSON API, the guard policy enforced continuously. Runs until SIGTERM; docs/AGENT.md.
// Exit 0 after a clean stop; 1 the listener or a file could not be opened; 3 bad
// options, a refused listen address, a malformed policy or token file; 4 the token file
// or TLS key is readable by others.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "cli/global_options.hpp"

namespace gpukill::cli {

struct AgentCommandOptions {
    std::string listen = "127.0.0.1:9402";
    double interval_seconds = 5;
    double rogue_interval_seconds = 60;
    std::optional<std::string> token_file;
    std::optional<std::string> tls_cert;
    std::optional<std::string> tls_key;
    std::optional<std::string> tls_client_ca;
    bool insecure_listen = false;
    std::vector<std::string> allowed_hosts;
    std::size_t metrics_top = 10;
    bool dcgm_names = false;
    bool lowercase_hostname = false;
    std::optional<std::string> policy;  // default CONFIG_DIR/guard.yaml, when it exists
    bool no_guard = false;
    std::size_t max_connections = 32;
    double request_timeout_seconds = 10;
};

int run_agent_command(const GlobalOptions& global, const AgentCommandOptions& options,
                      const std::vector<std::string>& argv);

}  // namespace gpukill::cli

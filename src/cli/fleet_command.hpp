// A command run on many hosts: `--remote HOST`, `--hosts NODESET` or `--hosts-file
// FILE` turn list, kill, reset, audit, guard test and check into fleet commands
// (src/fleet). Each host runs the same request (over SSH: the request's options with
// --json; through agents: the same request as /v1 JSON or query) and the answers are merged: one
// document with every host's own, or per-host sections, and the worst host's exit code.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "cli/command_id.hpp"
#include "cli/global_options.hpp"
#include "fleet/fleet_run.hpp"
#include "model/result.hpp"

namespace gpukill::cli {

struct CommandLine;

struct FleetOptions {
    std::vector<std::string> remote;  // --remote (gpu-kill's spelling), repeatable
    std::vector<std::string> hosts;   // --hosts NODESET, repeatable
    std::vector<std::string> hosts_files;
    std::vector<std::string> exclude;  // --exclude/-x NODESET
    std::size_t fanout = 32;
    bool gather = false;
    std::string transport = "ssh";
    bool fail_fast = false;
    std::optional<std::size_t> max_failures;
    bool accept_new_host_keys = false;
    std::optional<std::string> ssh_config;
    std::vector<std::string> ssh_options;
    std::string remote_gpukill = "gpukill";
    double connect_timeout_seconds = 10;
    double command_timeout_seconds = 120;
    std::optional<std::string> token_file;
    std::optional<std::string> agent_ca;
    std::string agent_scheme = "https";
    unsigned agent_port = 9402;
};

// Whether any host was named: the command runs on the fleet, not here.
inline bool fleet_requested(const FleetOptions& options) {
    return !options.remote.empty() || !options.hosts.empty() || !options.hosts_files.empty();
}

// What each host is asked, over either transport: the command's request (read from the
// command line through its table, engine/request_fields.hpp) as the options a remote
// gpukill runs with --json, and as the agent's /v1 call. Nothing else of the command
// line travels: each host uses its own roots, state and configuration. A document a
// request names (guard test's --policy FILE) is read here and sent as its text.
Result<fleet::FleetRequest> fleet_request(Command command, const CommandLine& cl);

int run_fleet_command(Command command, CommandLine& cl, const GlobalOptions& global);

}  // namespace gpukill::cli

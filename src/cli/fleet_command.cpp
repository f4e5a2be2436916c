#include "cli/fleet_command.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <cstdio>
#include <set>

#include "cli/command_line.hpp"
#include "cli/diagnostics.hpp"
#include "cli/fleet_text.hpp"
#include "cli/json_result.hpp"
#include "engine/request_json.hpp"
#include "fleet/agent_transport.hpp"
#include "fleet/fleet_report.hpp"
#include "fleet/fleet_run.hpp"
#include "fleet/inventory.hpp"
#include "fleet/ssh_transport.hpp"
#include "host/interrupt.hpp"

namespace gpukill::cli {
namespace {

// The options that stay on this side: the fleet's own and the local rendering ones.
struct LocalOption {
    const char* long_name;
    const char* short_name;  // "" when none
    bool takes_value;
};

constexpr LocalOption kLocalOptions[] = {
    {"--remote", "", true},          {"--hosts", "", true},
    {"--hosts-file", "", true},      {"--exclude", "-x", true},
    {"--fanout", "", true},          {"--gather", "", false},
    {"--transport", "", true},       {"--fail-fast", "", false},
    {"--max-failures", "", true},    {"--accept-new-host-keys", "", false},
    {"--ssh-config", "", true},      {"--ssh-option", "", true},
    {"--remote-gpukill", "", true},  {"--connect-timeout", "", true},
    {"--command-timeout", "", true}, {"--token-file", "", true},
    {"--agent-ca", "", true},        {"--agent-scheme", "", true},
    {"--agent-port", "", true},      {"--wide", "", false},
    {"--json", "", false},           {"--output", "-o", true},
    {"--dry-run", "", false},        {"--safe", "", false},
    {"--plan-id", "", true},         {"--actor", "", true},
};

// Drops every local option (and its value) from `argv`.
std::vector<std::string> strip_local(const std::vector<std::string>& argv) {
    std::vector<std::string> kept;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const std::string& arg = argv[i];
        if (arg == "--") {
            kept.insert(kept.end(), argv.begin() + static_cast<std::ptrdiff_t>(i), argv.end());
            break;
        }
        bool dropped = false;
        for (const LocalOption& option : kLocalOptions) {
            const std::string long_name = option.long_name;
            const std::string short_name = option.short_name;
            if (arg == long_name || (!short_name.empty() && arg == short_name)) {
                if (option.takes_value) ++i;
                dropped = true;
            } else if (option.takes_value && (arg.rfind(long_name + "=", 0) == 0 ||
                                              (!short_name.empty() && arg.size() > 2 &&
                                               arg.rfind(short_name, 0) == 0 && arg[1] != '-'))) {
                dropped = true;  // --hosts=n[1-4], -xnode3
            }
            if (dropped) break;
        }
        if (!dropped) kept.push_back(arg);
    }
    return kept;
}

std::vector<std::string> with(std::vector<std::string> args,
                              std::initializer_list<std::string> more) {
    args.insert(args.end(), more);
    return args;
}

engine::ResetRequest reset_request(const CommandLine& cl) {
    std::optional<std::string> gpus = cl.list.gpu;
    if (!cl.compat_reset_target.empty()) gpus = cl.compat_reset_target;
    return engine::ResetRequest{.gpus = gpus,
                                .all = cl.reset.all,
                                .force = cl.kill.force,
                                .timeout_seconds = cl.kill.timeout_seconds,
                                .verify_timeout_seconds = cl.kill.verify_timeout_seconds,
                                .dry_run = false,
                                .nvidia_smi = std::nullopt,
                                .command = ""};
}

// A two-phase action's calls: the plan (dry run) and the act on a plan id.
struct ActionCalls {
    fleet::RemoteCall plan;
    std::function<fleet::RemoteCall(const std::string&)> execute;
};

ActionCalls action_calls(const std::vector<std::string>& base, const std::string& http_prefix,
                         const nlohmann::json& body, bool dry_run) {
    ActionCalls calls;
    calls.plan.arguments = with(base, {"--dry-run", "--json"});
    calls.plan.http_method = "POST";
    calls.plan.http_path = http_prefix + "/plan";
    calls.plan.http_body = nlohmann::ordered_json::parse(body.dump());
    if (!dry_run) {
        calls.execute = [base, http_prefix, body](const std::string& plan_id) {
            fleet::RemoteCall act;
            act.arguments = with(base, {"--plan-id", plan_id, "--json"});
            act.http_method = "POST";
            act.http_path = http_prefix + "/execute";
            nlohmann::ordered_json with_id = nlohmann::ordered_json::parse(body.dump());
            with_id["plan_id"] = plan_id;
            act.http_body = std::move(with_id);
            act.acts = true;
            return act;
        };
    }
    return calls;
}

Result<fleet::FleetRequest> fleet_request(Command command, const CommandLine& cl,
                                          const std::vector<std::string>& argv) {
    const std::vector<std::string> base = strip_local(argv);
    fleet::FleetRequest request;
    request.command = command_name(command);
    fleet::RemoteCall& call = request.call;
    call.arguments = with(base, {"--json"});
    switch (command) {
        case Command::list:
            if (cl.list.watch) {
                return fail(ErrorCategory::invalid_input,
                            "--watch does not run on a fleet (list once per host instead)");
            }
            // The agent's snapshot is the whole host: a narrowed listing goes over SSH.
            if (!cl.list.gpu && cl.list.vendor == "all") call.http_path = "/v1/snapshot";
            break;
        case Command::kill: {
            KillOptions options = cl.kill_options();
            options.dry_run = false;  // the preview is the first phase of every fleet kill
            options.plan_id.reset();
            auto kill = kill_request_of(options);
            if (!kill) return std::unexpected(kill.error());
            const std::vector<std::string> act_base = with(base, {"--actor", "fleet"});
            ActionCalls calls = action_calls(act_base, "/v1/kill",
                                             engine::kill_request_to_json(*kill), cl.kill.dry_run);
            request.call = calls.plan;
            request.execute = calls.execute;
            break;
        }
        case Command::reset: {
            const std::vector<std::string> act_base = with(base, {"--actor", "fleet"});
            ActionCalls calls =
                action_calls(act_base, "/v1/reset",
                             engine::reset_request_to_json(reset_request(cl)), cl.kill.dry_run);
            request.call = calls.plan;
            request.execute = calls.execute;
            break;
        }
        case Command::audit:
            if (cl.audit.rogue_config_import || cl.audit.rogue_config_export ||
                cl.audit.rogue_config_print) {
                return fail(ErrorCategory::invalid_input,
                            "the rogue configuration options act on one host; run them there");
            }
            if (cl.audit.actions) call.http_path = "/v1/audit/actions";
            if (cl.audit.rogue) call.http_path = "/v1/rogue";
            break;
        case Command::guard:
            if (!guard_test_requested(cl.guard_cli)) {
                return fail(ErrorCategory::invalid_input,
                            "only `guard test` runs on a fleet (it signals nothing)");
            }
            call.http_path = "/v1/guard";
            break;
        case Command::check: {
            const CheckOptions& check = cl.check;
            const bool plain = !check.unaccounted_threshold && check.allowed_users.empty() &&
                               !check.idle && !check.no_rogue && !check.no_orphans;
            if (plain) call.http_path = "/v1/check";
            break;
        }
        case Command::doctor:
            return fail(ErrorCategory::invalid_input, "doctor runs on one host");
        case Command::agent:
        case Command::top:
        case Command::mcp:
            return fail(ErrorCategory::invalid_input,
                        std::string(command_name(command)) +
                            " runs on the host it serves: start it there (docs/DEPLOY.md)");
    }
    return request;
}

Result<std::unique_ptr<fleet::Transport>> open_transport(const FleetOptions& options) {
    if (options.transport == "ssh") {
        fleet::SshOptions ssh;
        ssh.config_file = options.ssh_config;
        ssh.options = options.ssh_options;
        ssh.accept_new_host_keys = options.accept_new_host_keys;
        ssh.connect_timeout_seconds = options.connect_timeout_seconds;
        ssh.command_timeout_seconds = options.command_timeout_seconds;
        ssh.remote_gpukill = options.remote_gpukill;
        ssh.interrupted = [] { return InterruptCatcher::caught(); };
        auto opened = fleet::SshTransport::open(std::move(ssh));
        if (!opened) return std::unexpected(opened.error());
        return std::unique_ptr<fleet::Transport>(std::move(*opened));
    }
    if (options.transport == "agent") {
        fleet::AgentOptions agent;
        agent.token_file = options.token_file;
        agent.ca_file = options.agent_ca;
        agent.scheme = options.agent_scheme;
        agent.default_port = options.agent_port;
        agent.connect_timeout_seconds = options.connect_timeout_seconds;
        agent.command_timeout_seconds = options.command_timeout_seconds;
        agent.interrupted = [] { return InterruptCatcher::caught(); };
        auto opened = fleet::AgentTransport::open(std::move(agent));
        if (!opened) return std::unexpected(opened.error());
        return std::unique_ptr<fleet::Transport>(std::move(*opened));
    }
    return fail(ErrorCategory::invalid_input, "--transport is ssh or agent");
}

std::optional<std::string> check_fleet_options(const FleetOptions& options) {
    if (options.fanout < 1 || options.fanout > 1024) return "--fanout must be 1 to 1024";
    if (!(options.connect_timeout_seconds > 0 && options.connect_timeout_seconds <= 3600)) {
        return "--connect-timeout must be more than 0 and at most 3600 seconds";
    }
    if (!(options.command_timeout_seconds > 0 && options.command_timeout_seconds <= 86400)) {
        return "--command-timeout must be more than 0 and at most 86400 seconds";
    }
    if (options.remote_gpukill.empty()) return "--remote-gpukill is empty";
    if (options.transport == "agent" &&
        (options.accept_new_host_keys || options.ssh_config || !options.ssh_options.empty())) {
        return "the ssh options do not apply to --transport agent";
    }
    if (options.transport == "ssh" && (options.token_file || options.agent_ca)) {
        return "--token-file and --agent-ca apply to --transport agent";
    }
    return std::nullopt;
}

}  // namespace

std::vector<std::string> remote_arguments(const std::vector<std::string>& argv) {
    return with(strip_local(argv), {"--json"});
}

int run_fleet_command(Command command, CommandLine& cl, const GlobalOptions& global,
                      const std::vector<std::string>& argv) {
    const FleetOptions& options = cl.fleet;
    if (auto problem = check_fleet_options(options)) return usage_error(*problem);
    auto hosts = fleet::resolve_targets({.remote = options.remote,
                                         .node_sets = options.hosts,
                                         .files = options.hosts_files,
                                         .exclusions = options.exclude});
    if (!hosts) return report_error(hosts.error());
    const std::vector<std::string> args(argv.begin() + std::min<std::size_t>(argv.size(), 1),
                                        argv.end());
    auto request = fleet_request(command, cl, args);
    if (!request) return report_error(request.error());
    // Caught from before the transport makes its control directory, so that an interrupt
    // ends the run through its cleanup.
    const InterruptCatcher interrupt;
    auto transport = open_transport(options);
    if (!transport) return report_error(transport.error());

    const bool json = cl.list.json || (command == Command::check && cl.check.json);
    const bool show_progress = !json && isatty(STDERR_FILENO) == 1;
    request->max_failures = options.max_failures;
    request->controls = fleet::FanOutControls{
        .fanout = options.fanout,
        .fail_fast = options.fail_fast,
        .progress =
            [show_progress](std::size_t done, std::size_t total) {
                if (!show_progress) return;
                fmt::print(stderr, "\r\x1b[Kfleet: {}/{} hosts done", done, total);
                std::fflush(stderr);
            },
        .interrupted = [] { return InterruptCatcher::caught(); }};
    fleet::FleetResult result = fleet::run_fleet(**transport, *hosts, *request);
    (*transport)->finish(*hosts);
    if (show_progress) fmt::print(stderr, "\r\x1b[K");
    if (InterruptCatcher::caught()) result.exit_code = std::max(result.exit_code, 130);

    if (json) {
        print_json_result(fleet::fleet_json(result));
    } else {
        std::vector<fleet::HostSection> sections;
        for (const fleet::HostResult& host : result.hosts) {
            sections.push_back(
                {host.host, fleet_host_text(command, cl, host, global.output_width)});
        }
        std::fputs(fleet::render_sections(sections, options.gather).c_str(), stdout);
        std::fputs(fleet::summary_text(result).c_str(), stdout);
    }
    std::fflush(stdout);
    return result.exit_code;
}

}  // namespace gpukill::cli

#include "cli/fleet_command.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <cstdio>
#include <set>

#include "cli/command_line.hpp"
#include "cli/diagnostics.hpp"
#include "cli/fleet_text.hpp"
#include "cli/json_result.hpp"
#include "engine/audit_queries.hpp"
#include "engine/guard_test.hpp"
#include "engine/health_check.hpp"
#include "engine/kill.hpp"
#include "engine/list_request.hpp"
#include "engine/request_codec.hpp"
#include "engine/reset.hpp"
#include "engine/rogue_scan.hpp"
#include "fleet/agent_transport.hpp"
#include "fleet/fleet_report.hpp"
#include "fleet/fleet_run.hpp"
#include "fleet/inventory.hpp"
#include "fleet/ssh_transport.hpp"
#include "sys/interrupt.hpp"

namespace gpukill::cli {
namespace {

std::vector<std::string> with(std::vector<std::string> args,
                              std::initializer_list<std::string> more) {
    args.insert(args.end(), more);
    return args;
}

// `words`, then the request as command-line options, then --json: what each host runs
// over SSH. Only the request travels: the host uses its own roots, state and
// configuration.
template <class Request>
std::vector<std::string> remote_words(std::initializer_list<std::string> words,
                                      const Request& request) {
    std::vector<std::string> arguments(words);
    const std::vector<std::string> options = engine::request_to_arguments(request);
    arguments.insert(arguments.end(), options.begin(), options.end());
    return arguments;
}

// A read: the same request over SSH and as the agent's GET with a query string.
template <class Request>
fleet::RemoteCall read_call(std::initializer_list<std::string> words, const Request& request,
                            const std::string& agent_path) {
    fleet::RemoteCall call;
    call.arguments = with(remote_words(words, request), {"--json"});
    call.http_method = "GET";
    call.http_path = agent_path + fleet::query_string(engine::request_to_text(request));
    return call;
}

// A two-phase action's calls: the plan (a dry run) and the act on a plan id. The request
// is the same on both transports: its options over SSH, its JSON to the agent.
template <class Request>
void action_calls(fleet::FleetRequest& out, const std::string& command, Request request,
                  bool dry_run) {
    request.dry_run = false;
    request.expected_plan_id.reset();
    const std::vector<std::string> base =
        with(remote_words({command}, request), {"--actor", "fleet"});
    const nlohmann::ordered_json body = engine::request_to_json(request);
    out.call.arguments = with(base, {"--dry-run", "--json"});
    out.call.http_method = "POST";
    out.call.http_path = "/v1/" + command + "/plan";
    out.call.http_body = body;
    if (dry_run) return;
    out.execute = [base, command, body](const std::string& plan_id) {
        fleet::RemoteCall act;
        act.arguments = with(base, {"--plan-id", plan_id, "--json"});
        act.http_method = "POST";
        act.http_path = "/v1/" + command + "/execute";
        nlohmann::ordered_json with_id = body;
        with_id["plan_id"] = plan_id;
        act.http_body = std::move(with_id);
        act.acts = true;
        return act;
    };
}

template <class Request>
Result<Request> request_of(const CommandLine& cl) {
    auto request = cl.requests.request<Request>();
    if (!request) return std::unexpected(request.error());
    return request;
}

}  // namespace

Result<fleet::FleetRequest> fleet_request(Command command, const CommandLine& cl) {
    fleet::FleetRequest request;
    request.command = command_name(command);
    switch (command) {
        case Command::list: {
            if (cl.list.watch) {
                return fail(ErrorCategory::invalid_input,
                            "--watch does not run on a fleet (list once per host instead)");
            }
            auto list = request_of<engine::ListRequest>(cl);
            if (!list) return std::unexpected(list.error());
            request.call = read_call({"list"}, *list, "/v1/snapshot");
            break;
        }
        case Command::kill: {
            auto kill = request_of<engine::KillRequest>(cl);
            if (!kill) return std::unexpected(kill.error());
            action_calls(request, "kill", *kill, kill->dry_run);
            break;
        }
        case Command::reset: {
            auto reset = request_of<engine::ResetRequest>(cl);
            if (!reset) return std::unexpected(reset.error());
            action_calls(request, "reset", *reset, reset->dry_run);
            break;
        }
        case Command::audit: {
            const AuditOptions& audit = cl.audit;
            if (audit.rogue_config_import || audit.rogue_config_export ||
                audit.rogue_config_print || audit.rogue_config_file) {
                return fail(ErrorCategory::invalid_input,
                            "the rogue configuration options act on one host; run them there");
            }
            if (audit.rogue && audit.actions) {
                return fail(ErrorCategory::invalid_input,
                            "--actions does not apply to rogue detection");
            }
            if (audit.rogue) {
                auto scan = request_of<engine::RogueScanRequest>(cl);
                if (!scan) return std::unexpected(scan.error());
                request.call = read_call({"audit", "--rogue"}, *scan, "/v1/rogue");
            } else if (audit.actions) {
                auto actions = request_of<engine::ActionsRequest>(cl);
                if (!actions) return std::unexpected(actions.error());
                request.call = read_call({"audit", "--actions"}, *actions, "/v1/audit/actions");
            } else {
                auto usage = request_of<engine::UsageRequest>(cl);
                if (!usage) return std::unexpected(usage.error());
                request.call = read_call({"audit"}, *usage, "/v1/audit/usage");
            }
            break;
        }
        case Command::guard: {
            if (!guard_test_requested(cl.guard_cli)) {
                return fail(ErrorCategory::invalid_input,
                            "only `guard test` runs on a fleet (it signals nothing)");
            }
            // A --policy FILE is read here, on the controller, and its text sent: every
            // host judges the same policy.
            auto test = request_of<engine::GuardTestRequest>(cl);
            if (!test) return std::unexpected(test.error());
            request.call.arguments = with(remote_words({"guard", "test"}, *test), {"--json"});
            request.call.http_method = "POST";
            request.call.http_path = "/v1/guard/test";
            request.call.http_body = engine::request_to_json(*test);
            break;
        }
        case Command::check: {
            auto check = request_of<engine::CheckRequest>(cl);
            if (!check) return std::unexpected(check.error());
            request.call = read_call({"check"}, *check, "/v1/check");
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

namespace {

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

int run_fleet_command(Command command, CommandLine& cl, const GlobalOptions& global) {
    const FleetOptions& options = cl.fleet;
    if (auto problem = check_fleet_options(options)) return usage_error(*problem);
    auto hosts = fleet::resolve_targets({.remote = options.remote,
                                         .node_sets = options.hosts,
                                         .files = options.hosts_files,
                                         .exclusions = options.exclude});
    if (!hosts) return report_error(hosts.error());
    auto request = fleet_request(command, cl);
    if (!request) return report_error(request.error());
    // Caught from before the transport makes its control directory, so that an interrupt
    // ends the run through its cleanup.
    const InterruptCatcher interrupt;
    auto transport = open_transport(options);
    if (!transport) return report_error(transport.error());

    const bool json = cl.list.json;
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

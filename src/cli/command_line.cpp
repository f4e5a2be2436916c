#include "cli/command_line.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>

#include "cli/command_docs.hpp"
#include "cli/version.hpp"

namespace gpukill::cli {
namespace {

void add_global_flags(CLI::App& app, GlobalFlags& flags) {
    const char* group = kHostOptionsGroup;
    app.add_option("--procfs", flags.procfs, "procfs root (GPUKILL_PROCFS, default /proc)")
        ->type_name("DIR")
        ->group(group);
    app.add_option("--sysfs", flags.sysfs, "sysfs root (GPUKILL_SYSFS, default /sys)")
        ->type_name("DIR")
        ->group(group);
    app.add_option("--devfs", flags.devfs, "device root (GPUKILL_DEVFS, default /dev)")
        ->type_name("DIR")
        ->group(group);
    app.add_option("--rundir", flags.rundir,
                   "the host's run directory, where containerd and CRI-O keep their "
                   "containers' bundles (GPUKILL_RUNDIR, default /run)")
        ->type_name("DIR")
        ->group(group);
    app.add_option("--nvml-library", flags.nvml_library,
                   "NVML library to load (GPUKILL_NVML_LIBRARY, default libnvidia-ml.so.1)")
        ->type_name("PATH")
        ->group(group);
    app.add_option("--state-dir", flags.state_dir,
                   "state directory (GPUKILL_STATE_DIR; /var/lib/gpukill as root, else "
                   "$XDG_STATE_HOME/gpukill)")
        ->type_name("DIR")
        ->group(group);
    app.add_option("--config-dir", flags.config_dir,
                   "configuration directory (GPUKILL_CONFIG_DIR; /etc/gpukill as root, else "
                   "$XDG_CONFIG_HOME/gpukill)")
        ->type_name("DIR")
        ->group(group);
}

void add_list_flags(CLI::App& app, ListOptions& list, std::string& output) {
    const char* group = "Listing";
    app.add_flag("--details", list.details, "one row per process")->group(group);
    app.add_flag("--json", list.json, "one JSON document (schema in docs/JSON.md)")
        ->group(kOutputOptionsGroup);
    app.add_option("--output,-o", output, "table or json")
        ->type_name("FORMAT")
        ->check(CLI::IsMember({"table", "json"}))
        ->group(kOutputOptionsGroup);
    app.add_flag("--watch,-w", list.watch, "refresh until interrupted")->group(group);
    app.add_option("--interval", list.interval_seconds, "seconds between refreshes (default 2)")
        ->type_name("SECONDS")
        ->group(group);
    app.add_flag("--no-agent", list.no_agent,
                 "read the host here, never asking the running agent (docs/AGENT.md)")
        ->group(group);
}

// kill's and reset's own option: the rest of theirs are their requests' fields.
void add_actor_flag(CLI::App& app, std::string& actor) {
    app.add_option("--actor", actor,
                   "who the audit records say asked: cli (default) or fleet (set by a fleet "
                   "controller)")
        ->type_name("INTERFACE")
        ->check(CLI::IsMember({"cli", "fleet"}))
        ->group("Killing (gpukill kill, or gpukill --kill)");
}

void add_fleet_flags(CLI::App& app, FleetOptions& fleet) {
    const char* group = kFleetOptionsGroup;
    app.add_option("--remote", fleet.remote, "run on this host over SSH (repeatable)")
        ->type_name("HOST")
        ->group(group);
    app.add_option("--hosts", fleet.hosts,
                   "run on these hosts: a node set as pdsh writes it (node[01-32],gpu[1-4,7])")
        ->type_name("NODESET")
        ->group(group);
    app.add_option("--hosts-file", fleet.hosts_files,
                   "hosts from a file: one node set a line, or a Prometheus file_sd JSON")
        ->type_name("FILE")
        ->group(group);
    app.add_option("--exclude,-x", fleet.exclude, "leave out these hosts (a node set)")
        ->type_name("NODESET")
        ->group(group);
    app.add_option("--fanout", fleet.fanout, "hosts at once (default 32)")
        ->type_name("N")
        ->group(group);
    app.add_flag("--gather", fleet.gather,
                 "merge hosts whose output is identical under one node range (dshbak -c)")
        ->group(group);
    app.add_option("--transport", fleet.transport, "ssh (default) or agent")
        ->type_name("TRANSPORT")
        ->check(CLI::IsMember({"ssh", "agent"}))
        ->group(group);
    app.add_flag("--fail-fast", fleet.fail_fast, "start no host after one fails")->group(group);
    app.add_option("--max-failures", fleet.max_failures,
                   "act on no host when more than N failed to plan (kill, reset)")
        ->type_name("N")
        ->group(group);
    app.add_flag("--accept-new-host-keys", fleet.accept_new_host_keys,
                 "trust a host key seen for the first time (StrictHostKeyChecking=accept-new); "
                 "a changed key is always refused")
        ->group(group);
    app.add_option("--ssh-config", fleet.ssh_config, "ssh configuration file (ssh -F)")
        ->type_name("FILE")
        ->group(group);
    app.add_option("--ssh-option", fleet.ssh_options,
                   "an ssh -o option (repeatable); BatchMode and host key checking stay on")
        ->type_name("OPTION")
        ->group(group);
    app.add_option("--remote-gpukill", fleet.remote_gpukill,
                   "the gpukill to run on each host (default gpukill, from the remote PATH)")
        ->type_name("PATH")
        ->group(group);
    app.add_option("--connect-timeout", fleet.connect_timeout_seconds,
                   "seconds to connect to a host (default 10)")
        ->type_name("SECONDS")
        ->group(group);
    app.add_option("--command-timeout", fleet.command_timeout_seconds,
                   "seconds a host may take to answer (default 120)")
        ->type_name("SECONDS")
        ->group(group);
    app.add_option("--token-file", fleet.token_file,
                   "the agents' bearer token, in a file only its owner may read")
        ->type_name("FILE")
        ->group(group);
    app.add_option("--agent-ca", fleet.agent_ca,
                   "CA certificate to verify the agents' certificates with (default: the "
                   "system's)")
        ->type_name("FILE")
        ->group(group);
    app.add_option("--agent-scheme", fleet.agent_scheme,
                   "https (default), or http to loopback addresses only")
        ->type_name("SCHEME")
        ->check(CLI::IsMember({"https", "http"}))
        ->group(group);
    app.add_option("--agent-port", fleet.agent_port,
                   "the agents' port when a host names none (default 9402)")
        ->type_name("PORT")
        ->group(group);
}

void add_reset_flags(CLI::App& app, ResetOptions& reset) {
    const char* group = "Resetting (gpukill reset, or gpukill --reset)";
    app.add_option("--nvidia-smi", reset.nvidia_smi,
                   "nvidia-smi to reset NVIDIA GPUs with (GPUKILL_NVIDIA_SMI, default PATH)")
        ->type_name("PATH")
        ->group(group);
}

void add_audit_flags(CLI::App& app, AuditOptions& audit) {
    const char* group = "Auditing (gpukill audit, or gpukill --audit)";
    app.add_flag("--actions", audit.actions, "the actions gpukill took (kills, resets)")
        ->group(group);
    app.add_flag("--rogue", audit.rogue, "look for miners and other rogue processes")->group(group);
    app.add_flag("--rogue-config", audit.rogue_config_print,
                 "print the rogue-detection configuration in effect")
        ->group(group);
    app.add_flag("--rogue-export-config", audit.rogue_config_export,
                 "write the rogue-detection configuration in effect to stdout (YAML)")
        ->group(group);
    app.add_option("--rogue-import-config", audit.rogue_config_import,
                   "check this file and make it the rogue-detection configuration")
        ->type_name("FILE")
        ->group(group);
    app.add_option("--rogue-config-file", audit.rogue_config_file,
                   "use this rogue-detection configuration instead of CONFIG_DIR/rogue.yaml")
        ->type_name("FILE")
        ->group(group);
}

void add_output_flags(CLI::App& app, bool& wide) {
    app.add_flag("--wide", wide,
                 "never cut or wrap to the terminal's width (output to a pipe or file is never "
                 "cut)")
        ->group(kOutputOptionsGroup);
}

// `gpukill agent`'s own options (the daemon: docs/AGENT.md); the host options fall
// through to the top level.
void add_agent_options(CLI::App& command, AgentCommandOptions& agent) {
    command
        .add_option("--listen", agent.listen,
                    "address and port to serve on (default 127.0.0.1:9402; port 0: any free "
                    "port). Not loopback: needs TLS or --insecure-listen")
        ->type_name("ADDRESS");
    command.add_option("--interval", agent.interval_seconds, "seconds between samples (default 5)")
        ->type_name("SECONDS");
    command
        .add_option("--token-file", agent.token_file,
                    "bearer tokens, one `NAME SCOPES SECRET` a line; readable by its owner only")
        ->type_name("FILE");
    command.add_option("--tls-cert", agent.tls_cert, "serve HTTPS with this certificate (PEM)")
        ->type_name("FILE");
    command.add_option("--tls-key", agent.tls_key, "the certificate's private key (PEM, private)")
        ->type_name("FILE");
    command
        .add_option("--tls-client-ca", agent.tls_client_ca,
                    "require client certificates signed by this CA (mTLS)")
        ->type_name("FILE");
    command.add_flag("--insecure-listen", agent.insecure_listen,
                     "allow plain HTTP on an address that is not loopback");
    command
        .add_option("--allow-host", agent.allowed_hosts,
                    "a Host (and Origin) name clients may use besides loopback (repeatable)")
        ->type_name("NAME");
    command
        .add_option("--metrics-top", agent.metrics_top,
                    "per GPU, the processes with the most memory shown by PID (default 10); the "
                    "rest are summed")
        ->type_name("N");
    command.add_flag("--dcgm-names", agent.dcgm_names,
                     "also emit dcgm-exporter's metric names for NVIDIA GPUs");
    command.add_flag("--lowercase-hostname", agent.lowercase_hostname,
                     "label GPUs `hostname` instead of dcgm-exporter's `Hostname`");
    command
        .add_option("--policy", agent.policy,
                    "guard policy to enforce (default CONFIG_DIR/guard.yaml, when it exists)")
        ->type_name("FILE");
    command.add_flag("--no-guard", agent.no_guard, "enforce no policy, even if one exists");
    command
        .add_option("--rogue-interval", agent.rogue_interval_seconds,
                    "seconds between rogue scans counted in /metrics (default 60; 0: none)")
        ->type_name("SECONDS");
    command
        .add_option("--max-connections", agent.max_connections,
                    "connections served at once (default 32); as many more wait, the rest get 503")
        ->type_name("N");
    command
        .add_option("--request-timeout", agent.request_timeout_seconds,
                    "seconds a stalled read or write may wait before the connection is closed "
                    "(default 10)")
        ->type_name("SECONDS");
}

OptionDoc doc_of(const CLI::Option& option) {
    OptionDoc doc;
    if (!option.get_snames().empty()) doc.short_name = "-" + option.get_snames().front();
    if (!option.get_lnames().empty()) doc.long_name = "--" + option.get_lnames().front();
    for (std::size_t i = 1; i < option.get_lnames().size(); ++i) {
        doc.aliases.push_back("--" + option.get_lnames()[i]);
    }
    if (option.get_type_size_max() > 0 && !option.get_type_name().empty() &&
        option.get_expected_max() > 0) {
        // CLI11 appends a check's choices ("FORMAT:{table,json}"); the description says them.
        const std::string name = option.get_type_name();
        doc.value = name.substr(0, name.find(':'));
    }
    doc.description = option.get_description();
    doc.group = option.get_group();
    return doc;
}

bool is_named(const CLI::Option& option) {
    return !option.get_lnames().empty() && option.get_lnames().front() != "help" &&
           option.get_lnames().front() != "version";
}

// gpu-kill's command flags: they name a command, they are not options of one.
bool is_command_flag(const std::string& long_name) {
    return std::any_of(command_flags().begin(), command_flags().end(),
                       [&](const CommandFlag& flag) { return long_name == flag.long_name; });
}

// Where a command's request options are listed in its help.
const char* request_group(Command command) {
    switch (command) {
        case Command::list:
            return "Listing";
        case Command::kill:
            return "Killing (gpukill kill, or gpukill --kill)";
        case Command::reset:
            return "Resetting (gpukill reset, or gpukill --reset)";
        case Command::audit:
            return "Auditing (gpukill audit, or gpukill --audit)";
        case Command::guard:
            return "Guard (gpukill guard, or gpukill --guard)";
        case Command::check:
            return "Checking";
        default:
            return "Options";
    }
}

bool applies_everywhere(const OptionDoc& doc) {
    return scope_of(doc.long_name) == nullptr &&
           (doc.group == kHostOptionsGroup || doc.group == kOutputOptionsGroup);
}

}  // namespace

CommandLine::CommandLine()
    : app(std::make_unique<CLI::App>("gpukill: find what holds a GPU and give it back safely",
                                     "gpukill")) {
    app->set_version_flag("--version", version_line());
    app->require_subcommand(0, 1);
    add_global_flags(*app, global_flags);
    add_output_flags(*app, wide);
    app->add_flag("--list,-l", compat_list, "list GPUs and processes (same as `gpukill list`)")
        ->group("Listing");
    add_list_flags(*app, list, output);
    app->add_flag("--kill,-k", compat_kill, "stop processes (same as `gpukill kill`)")
        ->group("Killing (gpukill kill, or gpukill --kill)");
    add_actor_flag(*app, kill.actor);
    requests.add_to(*app);
    compat_reset =
        app->add_option("--reset,-r", compat_reset_target,
                        "reset a GPU (same as `gpukill reset`); `--reset G` names the GPU")
            ->type_name("GPU")
            ->expected(0, 1)
            ->group("Resetting (gpukill reset, or gpukill --reset)");
    add_reset_flags(*app, reset);
    app->add_flag("--audit", compat_audit, "usage history and actions (same as `gpukill audit`)")
        ->group("Auditing (gpukill audit, or gpukill --audit)");
    add_audit_flags(*app, audit);
    add_fleet_flags(*app, fleet);
    add_guard_cli(*app, guard_cli);
    app->add_option("pids", positional_pids, "PIDs to stop (short form of gpukill kill --pid)");

    // Every command's options fall through to the app, so `gpukill list --json` and
    // `gpukill --list --json` are the same parse, and the options every command takes
    // (--procfs, --state-dir ...) come before or after the command alike.
    list_command = app->add_subcommand("list", command_doc(Command::list).summary);
    list_command->fallthrough();
    doctor_command = app->add_subcommand("doctor", command_doc(Command::doctor).summary);
    doctor_command->fallthrough();
    kill_command = app->add_subcommand("kill", command_doc(Command::kill).summary);
    kill_command->fallthrough();
    kill_command->add_option("pids", kill_pids, "PIDs to stop");
    reset_command = app->add_subcommand("reset", command_doc(Command::reset).summary);
    reset_command->fallthrough();
    reset_command->add_option("gpus", reset_gpus, "the GPUs to reset (index, UUID or bus id)");
    audit_command = app->add_subcommand("audit", command_doc(Command::audit).summary);
    audit_command->fallthrough();
    check_command = app->add_subcommand("check", command_doc(Command::check).summary);
    check_command->fallthrough();
    agent_command = app->add_subcommand("agent", command_doc(Command::agent).summary);
    agent_command->fallthrough();
    add_agent_options(*agent_command, agent);
    // --interval and --gpu fall through to the app (their scopes name top).
    top_command = app->add_subcommand("top", command_doc(Command::top).summary);
    top_command->fallthrough();
    top_command->add_flag("--readonly", top.readonly,
                          "look only: the keys that signal or reset are refused");
    mcp_command = app->add_subcommand("mcp", command_doc(Command::mcp).summary);
    mcp_command->fallthrough();
    add_mcp_options(*mcp_command, mcp);
}

CommandLine::~CommandLine() = default;

std::vector<OptionDoc> CommandLine::options_for(Command command) const {
    std::vector<OptionDoc> own, everywhere;
    const CLI::App* sub = nullptr;
    switch (command) {
        case Command::doctor:
            sub = doctor_command;
            break;
        case Command::check:
            sub = check_command;
            break;
        case Command::agent:
            sub = agent_command;
            break;
        case Command::top:
            sub = top_command;
            break;
        case Command::mcp:
            sub = mcp_command;
            break;
        default:
            break;
    }
    if (sub != nullptr) {
        for (const CLI::Option* option : sub->get_options()) {
            if (is_named(*option)) own.push_back(doc_of(*option));
        }
    }
    const std::vector<const engine::FieldDoc*> fields = request_fields_of(command);
    for (const CLI::Option* option : app->get_options()) {
        if (!is_named(*option)) continue;
        OptionDoc doc = doc_of(*option);
        if (applies_everywhere(doc)) {
            everywhere.push_back(std::move(doc));
            continue;
        }
        if (is_command_flag(doc.long_name)) continue;
        // A request's option: this command's own words for it, from its table.
        if (!commands_taking(doc.long_name).empty()) {
            for (const engine::FieldDoc* field : fields) {
                if (field->option == doc.long_name) {
                    doc.description = engine::field_description(*field);
                    doc.group = request_group(command);
                    own.push_back(std::move(doc));
                    break;
                }
                if (field->text_option == doc.long_name) {
                    doc.group = request_group(command);
                    own.push_back(std::move(doc));
                    break;
                }
            }
            continue;
        }
        const std::vector<Command>* scope = scope_of(doc.long_name);
        const bool belongs = scope != nullptr
                                 ? std::find(scope->begin(), scope->end(), command) != scope->end()
                                 : command == Command::guard;  // the rest is guard's own
        if (belongs) own.push_back(std::move(doc));
    }
    own.insert(own.end(), everywhere.begin(), everywhere.end());
    return own;
}

std::vector<OptionDoc> CommandLine::common_options() const {
    std::vector<OptionDoc> docs;
    for (const CLI::Option* option : app->get_options()) {
        if (!is_named(*option)) continue;
        OptionDoc doc = doc_of(*option);
        if (applies_everywhere(doc)) docs.push_back(std::move(doc));
    }
    return docs;
}

std::vector<OptionDoc> CommandLine::compatible_forms() const {
    std::vector<OptionDoc> docs;
    for (const CLI::Option* option : app->get_options()) {
        if (!is_named(*option)) continue;
        OptionDoc doc = doc_of(*option);
        if (is_command_flag(doc.long_name)) docs.push_back(std::move(doc));
    }
    return docs;
}

std::vector<std::string> CommandLine::long_option_names() const {
    std::vector<std::string> names;
    const auto add = [&](const CLI::App& owner) {
        for (const CLI::Option* option : owner.get_options()) {
            for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
        }
    };
    add(*app);
    for (const CLI::App* command : app->get_subcommands({})) add(*command);
    return names;
}

}  // namespace gpukill::cli

#include "cli/command_docs.hpp"

#include "cli/request_options.hpp"

#include <algorithm>

namespace gpukill::cli {
namespace {

const ExitCodeDoc kUsageError{"3", "invalid arguments: an unknown command or option, a bad value"};
const ExitCodeDoc kFleetUnreachable{
    "10", "with --hosts/--remote: a host was unreachable or has no usable gpukill (docs/FLEET.md)"};

std::vector<CommandDoc> build_docs() {
    using enum Command;
    std::vector<CommandDoc> docs;
    docs.push_back(CommandDoc{
        .command = list,
        .summary = "list GPUs and every process holding them",
        .usage = {"list [--details] [--json] [--gpu G] [--vendor V] [--watch [--interval S]]",
                  "--list ..."},
        .paragraphs =
            {"One row per GPU: memory, utilisation, temperature, power and the process "
             "holding the most memory. With --details, one row per process and GPU, "
             "including processes the driver does not list but that hold the GPU's device "
             "file (SEEN BY \"file only\"), and memory that no listed process accounts for.",
             "Every listing is recorded in the usage history (STATE_DIR/usage.sqlite3), which "
             "`gpukill audit` reads back.",
             "Where `gpukill agent` runs and serves STATE_DIR, a one-shot list as root asks it "
             "over its root-only socket (STATE_DIR/agent.sock) and shows its answer: the same "
             "holders a sweep finds, in milliseconds on a busy host (the agent tracks them "
             "from kernel events and records its own samples). The JSON says \"source\": "
             "\"agent\" or \"sweep\", the table a last line when the agent answered; "
             "anything amiss, and --no-agent, makes it read /proc itself."},
        .examples = {{"gpukill list", "one row per GPU"},
                     {"gpukill list --details", "plus one row per process and GPU"},
                     {"gpukill list --gpu 1 --json", "GPU 1 only, as one JSON document"},
                     {"gpukill list --watch --interval 1", "refresh in place until Ctrl-C"},
                     {"gpukill list --no-agent", "read /proc here even where the agent runs"},
                     {"gpukill list --hosts node[01-32] --gather",
                      "every host over SSH, identical ones merged"}},
        .exit_codes = {{"0", "the listing was printed (also on a host with no GPU)"},
                       {"1", "a named NVML library could not be loaded, or stdout failed"},
                       kUsageError,
                       kFleetUnreachable},
        .see_also = "docs/JSON.md (the --json schema)",
    });
    docs.push_back(CommandDoc{
        .command = kill,
        .summary = "stop processes holding GPUs and prove the memory came back",
        .usage = {"kill --pid PID... [--force] [--signal SIG] [--dry-run]",
                  "kill SELECTORS... [--batch] [--force]", "PID...", "--kill ..."},
        .paragraphs =
            {"Sends the first signal (SIGTERM unless --signal) to each target, waits "
             "--timeout-secs, sends SIGKILL to what survives when --force is given, then "
             "waits until the GPU memory the targets held is released and says so. Each "
             "target is bound to its identity (pidfd and start time) when planned, so a "
             "reused PID is never signalled.",
             "A target's descendants holding the same GPU (DataLoader workers) are always "
             "included. A selector that may match many processes (--gpu, --filter, --user, "
             "--container, --slurm-job, --image, --not-image, --min-memory, --orphaned, "
             "--unlisted) only "
             "previews until --batch "
             "is given. A --pid that holds no GPU is refused unless --any-process. PID 0 and "
             "1, kernel threads, gpukill and its ancestors and protected processes are never "
             "signalled; refusals are one stderr line each."},
        .examples = {{"gpukill kill --pid 4242", "SIGTERM, wait, verify the memory came back"},
                     {"gpukill kill --pid 4242 --force", "SIGKILL what survives 5 seconds"},
                     {"gpukill kill --gpu 1 --orphaned --batch",
                      "the workers `kill -9` left behind on GPU 1"},
                     {"gpukill kill --gpu 0 --dry-run", "the exact plan; nothing is sent"},
                     {"gpukill kill --hosts node[001-100] --filter python --batch --force",
                      "on 100 hosts: plan, act, verify each host's memory"}},
        .exit_codes = {{"0", "every target ended and its GPU memory came back"},
                       {"1", "gpukill could not signal a target (e.g. out of file descriptors)"},
                       {"2", "preview only: the selector needs --batch to act"},
                       {"3", "invalid arguments, or a named PID was refused"},
                       {"4", "permission denied: a target belongs to another user"},
                       {"5", "unsupported: --procfs from another PID namespace"},
                       {"6", "some targets survived (add --force)"},
                       {"7", "targets gone but their memory is held by nobody: reset the GPU"},
                       {"8", "the memory did not come back within --verify-timeout"},
                       kFleetUnreachable,
                       {"130", "interrupted; what was sent is in the audit log"}},
        .see_also = "README.md, section \"Stopping what holds a GPU\"",
    });
    docs.push_back(CommandDoc{
        .command = reset,
        .summary = "reset a GPU when nothing else gives its memory back (root only)",
        .usage = {"reset GPU... [--force] [--dry-run]", "reset --gpu G | --all", "--reset [G] ..."},
        .paragraphs =
            {"The last resort for memory no process accounts for (a soft-locked GPU) or a "
             "GPU in a bad state. A preflight lists what holds the GPU; with holders nothing "
             "is reset unless --force, which ends them first through the same path as kill. "
             "NVIDIA GPUs are reset by nvidia-smi -r; AMD GPUs through the amdgpu debugfs "
             "recovery file. After the reset gpukill waits until the GPU is back and idle."},
        .examples = {{"gpukill reset 0", "reset GPU 0 (as nvidia-smi -r -i 0)"},
                     {"gpukill reset --gpu 0 --force", "end what holds it first, then reset"},
                     {"gpukill reset --all --dry-run", "the preflight and the plan only"}},
        .exit_codes = {{"0", "the GPU was reset and is idle"},
                       {"1", "the reset failed or the GPU did not come back"},
                       {"3", "invalid arguments, or GPUs that must be reset together"},
                       {"4", "not root, or nvidia-smi said no permission"},
                       {"5", "no reset path for this GPU (vendor, driver, no nvidia-smi)"},
                       {"6", "processes hold the GPU: nothing was reset (add --force)"},
                       {"8", "reset, but not idle within --verify-timeout"}},
        .see_also = "README.md, section \"Resetting a GPU\"",
    });
    docs.push_back(CommandDoc{
        .command = audit,
        .summary = "usage history, actions taken and rogue-process detection",
        .usage = {"audit [--audit-hours H] [--audit-user U] [--audit-process REGEX]",
                  "audit --audit-summary | --actions", "audit --rogue [--rogue-config-file F]",
                  "--audit ..."},
        .paragraphs =
            {"Reads back the usage history every listing records (who held which GPU, how "
             "much memory, for how long), the action log (every kill, reset and guard "
             "action, with the actor who asked), and judges every GPU holder for signs of "
             "a miner (--rogue)."},
        .examples = {{"gpukill audit", "GPU processes of the last 24 hours"},
                     {"gpukill audit --audit-summary --audit-hours 168",
                      "GPU-hours and peak memory per user, last week"},
                     {"gpukill audit --actions --json", "the kills and resets gpukill made"},
                     {"gpukill audit --rogue", "look for miners among the GPU holders"}},
        .exit_codes = {{"0", "the answer (also when nothing is recorded yet)"},
                       {"1", "the history or the log could not be read"},
                       kUsageError,
                       {"4", "the history may not be read"},
                       {"9", "--rogue: at least one finding"}},
        .see_also = "docs/AUDIT.md, docs/ROGUE.md",
    });
    docs.push_back(CommandDoc{
        .command = guard,
        .summary = "policies that warn and act instead of 3 a.m. kills",
        .usage = {"guard init [--policy FILE]", "guard check FILE",
                  "guard test [--policy FILE] [--snapshot FILE]",
                  "guard run [--policy FILE] [--once]", "--guard-enforce | --guard-dry-run | ..."},
        .paragraphs =
            {"A YAML policy (CONFIG_DIR/guard.yaml, or --policy FILE) sets a mode (off, "
             "dry-run, enforce), per-user, per-group and per-GPU limits, time windows and "
             "runaway rules. `guard init` writes a commented starter policy in dry-run mode; "
             "`guard test` shows what the policy would do now and signals nothing; `guard "
             "run` samples, warns and acts through the same path as kill. The editing flags "
             "change the policy file in place."},
        .examples = {{"gpukill guard init", "write a starter policy (dry-run)"},
                     {"gpukill guard test", "what the policy would do now"},
                     {"gpukill guard run --once", "one enforcement cycle"},
                     {"gpukill --guard-add-user bob --guard-memory-limit 8", "limit bob to 8 GiB"}},
        .exit_codes = {{"0", "valid, tested, or the loop ended cleanly"},
                       {"1", "the policy file could not be read or written"},
                       {"3", "invalid arguments, or a malformed policy (FILE:LINE:COLUMN)"}},
        .see_also = "docs/GUARD.md",
    });
    docs.push_back(CommandDoc{
        .command = doctor,
        .summary = "check backends, drivers and visibility; say what to fix",
        .usage = {"doctor [--json]"},
        .paragraphs = {"Which GPU backends loaded and why not, the driver version, the "
                       "device nodes present, whether other users' processes are visible, and "
                       "whether the state directory is writable, with what to do about each "
                       "gap."},
        .examples = {{"gpukill doctor", "what gpukill can and cannot see here"}},
        .exit_codes = {{"0", "every check passed"}, {"1", "a check failed"}, kUsageError},
        .see_also = "README.md",
    });
    docs.push_back(CommandDoc{
        .command = check,
        .summary = "one verdict for CI and probes: exit 0 clean, 1 problem, 2 unknown",
        .usage = {"check [--idle] [--allow-user U]... [--unaccounted-threshold SIZE] [--json]"},
        .paragraphs =
            {"A problem is a soft-locked GPU, memory no listed process accounts for above "
             "the threshold, a lost GPU, an orphaned holder, a holder outside --allow-user "
             "(or any holder with --idle), or a rogue finding scoring 60 or more (rogue.yaml's "
             "check_threshold: one sign only mining or hiding explains). A lower finding, such "
             "as a program built in /tmp that names itself, is a note: gpukill audit --rogue "
             "shows its evidence. It never "
             "signals anything and records nothing; the one stdout line is the summary "
             "node-problem-detector shows."},
        .examples = {{"gpukill check", "one line: clean, or the problems"},
                     {"gpukill check --idle", "before a CI job: any GPU holder is a problem"},
                     {"gpukill check --allow-user slurm --json", "for machines"}},
        .exit_codes = {{"0", "clean"},
                       {"1", "a problem was found"},
                       {"2", "unknown: gpukill cannot see enough (no backend, not root)"},
                       kUsageError},
        .see_also = "README.md, section \"A health check\"",
    });
    docs.push_back(CommandDoc{
        .command = agent,
        .summary = "the per-host daemon: Prometheus /metrics, the /v1 JSON API, the guard",
        .usage = {"agent [--listen HOST:PORT] [--interval S] [--token-file FILE]",
                  "agent --listen 0.0.0.0:9402 --tls-cert CRT --tls-key KEY [--tls-client-ca CA]",
                  "agent [--policy FILE | --no-guard] [--dcgm-names] [--metrics-top N]"},
        .paragraphs =
            {"Samples the host every --interval (usage history and /metrics), enforces the "
             "guard policy (CONFIG_DIR/guard.yaml or --policy) at its check interval, and "
             "serves /metrics (Prometheus text or OpenMetrics, dcgm-exporter's label names), "
             "/healthz, /readyz and the /v1 JSON API (snapshot, kill and reset plans and "
             "their execution, check, audit actions, rogue scan, guard status).",
             "It listens on 127.0.0.1 unless told otherwise; another address needs TLS or "
             "--insecure-listen. Every /v1 call needs a bearer token from --token-file (scope "
             "read for GETs, act for kill and reset); the audit records name the token and "
             "the peer's address. SIGHUP (or an edit) reloads the policy, SIGTERM stops it; "
             "it notifies systemd when ready and pets its watchdog. One line per event on "
             "stderr; the start line is \"listening on http://HOST:PORT\"."},
        .examples = {{"gpukill agent", "serve 127.0.0.1:9402; /metrics open, /v1 needs tokens"},
                     {"gpukill agent --token-file /etc/gpukill/tokens --dcgm-names",
                      "the API for token holders, and dcgm-exporter's names too"},
                     {"gpukill agent --listen 0.0.0.0:9402 --tls-cert c.pem --tls-key k.pem",
                      "HTTPS on every address"}},
        .exit_codes = {{"0", "stopped by SIGTERM or SIGINT"},
                       {"1", "the address could not be bound, or a file could not be read"},
                       {"3",
                        "invalid arguments: a refused listen address, a malformed policy or "
                        "token file, TLS files that do not load"},
                       {"4", "the token file is readable by others or owned by another user"}},
        .see_also = "docs/AGENT.md, docs/API.md, docs/METRICS.md",
    });
    docs.push_back(CommandDoc{
        .command = top,
        .summary = "the interactive monitor: GPUs, their holders, and acting on them",
        .usage = {"top [--interval S] [--gpu G] [--readonly]"},
        .paragraphs =
            {"A screen to keep open on a GPU node: per GPU its memory and utilisation bars, "
             "temperature, power and sparklines of the last minutes; per process and GPU its "
             "memory, utilisation, CPU%, host memory, run time, container and SEEN BY, with "
             "holders the driver does not list (H), orphans (O) and memory nobody accounts "
             "for (U) marked. Keys as in nvitop and htop: arrows, `,` `.` `/` and `o` sort, "
             "t tree, f filter, g one GPU, Space tags, T/K/I send SIGTERM, SIGKILL or SIGINT "
             "after a confirmation naming each process, and the screen then says per GPU "
             "whether the memory came back; h lists every key (docs/TOP.md).",
             "Actions go through the same plan, refusals and audit records as `gpukill kill` "
             "(actor `top`). Without root, other users' processes are dimmed and cannot be "
             "signalled; --readonly refuses every key that changes something. When stdout is "
             "not a terminal, it prints `gpukill list --details --watch` instead."},
        .examples = {{"gpukill top", "the monitor, refreshed every 2 seconds"},
                     {"gpukill top --interval 1 --gpu 0", "GPU 0 only, every second"},
                     {"gpukill top --readonly", "look, never act"}},
        .exit_codes = {{"0", "left with q, Ctrl-C or SIGTERM"},
                       {"1",
                        "the terminal could not be driven, or a named NVML library "
                        "could not be loaded"},
                       kUsageError},
        .see_also = "docs/TOP.md",
    });
    docs.push_back(CommandDoc{
        .command = mcp,
        .summary = "the MCP server: AI assistants see and reclaim GPUs through the same engine",
        .usage = {"mcp [--allow-actions]",
                  "mcp --http [--listen ADDR:PORT] [--token-file FILE] [--allow-actions]"},
        .paragraphs =
            {"Serves the Model Context Protocol over stdio (what desktop assistants launch: "
             "stdout carries MCP messages only, logs go to stderr) or, with --http, over "
             "Streamable HTTP at http://ADDR:PORT/mcp. Tools list GPUs and their processes, "
             "explain a GPU's memory, scan for rogue processes, check, audit and test guard "
             "policies; with --allow-actions also plan_kill, execute_kill_plan and reset_gpu, "
             "through the same plans, refusals and audit records as the command line (actor "
             "mcp:<client name>).",
             "Over HTTP the listener binds 127.0.0.1 unless --listen says otherwise, refuses "
             "foreign Origin and Host headers, and with --token-file needs a bearer token on "
             "every request; --allow-actions over HTTP needs --token-file. With port 0 the "
             "bound port is said on stderr: \"gpukill mcp: listening on http://...\"."},
        .examples = {{"gpukill mcp", "read-only, over stdio (for Claude Desktop and others)"},
                     {"gpukill mcp --allow-actions", "also the kill and reset tools"},
                     {"gpukill mcp --http --listen 127.0.0.1:0", "Streamable HTTP, any free port"},
                     {"gpukill mcp --http --allow-actions --token-file /etc/gpukill/mcp-tokens",
                      "actions over HTTP, with bearer tokens"}},
        .exit_codes = {{"0", "the input ended or the server was stopped"},
                       {"1", "the address could not be bound, or stdout failed"},
                       kUsageError,
                       {"4", "the token file may be read by others, or not by gpukill"}},
        .see_also = "docs/MCP.md",
    });
    return docs;
}

}  // namespace

const CommandDoc& command_doc(Command command) {
    static const std::vector<CommandDoc> docs = build_docs();
    return *std::find_if(docs.begin(), docs.end(),
                         [&](const CommandDoc& doc) { return doc.command == command; });
}

const std::vector<CommandFlag>& command_flags() {
    using enum Command;
    static const std::vector<CommandFlag> flags = {
        {"--list", "-l", list}, {"--kill", "-k", kill}, {"--reset", "-r", reset},
        {"--audit", "", audit}, {"--guard", "", guard}, {"--guard-test-policies", "", guard},
    };
    return flags;
}

const std::vector<OptionScope>& option_scopes() {
    using enum Command;
    // The commands a fleet runs (doctor looks at this host only).
    const std::vector<Command> kFleetCommands = {list, kill, reset, audit, guard, check};
    // The command line's own options; every engine request's options follow, scoped to
    // the commands whose requests have them (request_options.hpp).
    static const std::vector<OptionScope> scopes = [&] {
        std::vector<OptionScope> all = {
            {"--details", {list}},
            {"--watch", {list}},
            {"--no-agent", {list}},
            {"--interval", {list, top}},
            {"--json", {list, kill, reset, audit, guard, check, doctor}},
            {"--output", {list, kill, reset, audit, guard, check, doctor}},
            {"--nvidia-smi", {reset}},
            {"--actions", {audit}},
            {"--rogue", {audit}},
            {"--rogue-config", {audit}},
            {"--rogue-export-config", {audit}},
            {"--rogue-import-config", {audit}},
            {"--rogue-config-file", {audit}},
            {"--actor", {kill, reset}},
            {"--remote", kFleetCommands},
            {"--hosts", kFleetCommands},
            {"--hosts-file", kFleetCommands},
            {"--exclude", kFleetCommands},
            {"--fanout", kFleetCommands},
            {"--gather", kFleetCommands},
            {"--transport", kFleetCommands},
            {"--fail-fast", kFleetCommands},
            {"--max-failures", {kill, reset}},
            {"--accept-new-host-keys", kFleetCommands},
            {"--ssh-config", kFleetCommands},
            {"--ssh-option", kFleetCommands},
            {"--remote-gpukill", kFleetCommands},
            {"--connect-timeout", kFleetCommands},
            {"--command-timeout", kFleetCommands},
            {"--token-file", kFleetCommands},
            {"--agent-ca", kFleetCommands},
            {"--agent-scheme", kFleetCommands},
            {"--agent-port", kFleetCommands},
        };
        for (const std::string& option : request_option_names()) {
            all.push_back(OptionScope{.name = option, .commands = commands_taking(option)});
        }
        return all;
    }();
    return scopes;
}

const std::vector<Command>* scope_of(const std::string& long_name) {
    for (const OptionScope& scope : option_scopes()) {
        if (long_name == scope.name) return &scope.commands;
    }
    return nullptr;
}

}  // namespace gpukill::cli

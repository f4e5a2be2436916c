// The whole command line as one parser: every option of every command registered once,
// into the option structs the commands run with. The parser is also the option table
// the help, the man pages and the completions are written from (options_for), so what
// is documented is exactly what is parsed.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/agent_command.hpp"
#include "cli/audit_command.hpp"
#include "cli/check_command.hpp"
#include "cli/command_id.hpp"
#include "cli/fleet_command.hpp"
#include "cli/global_options.hpp"
#include "cli/guard_cli.hpp"
#include "cli/kill_command.hpp"
#include "cli/list_command.hpp"
#include "cli/mcp_command.hpp"
#include "cli/request_options.hpp"
#include "cli/reset_command.hpp"
#include "cli/top_command.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace gpukill::cli {

// One option as a reader sees it.
struct OptionDoc {
    std::string short_name;            // "-p", or empty
    std::string long_name;             // "--pid"
    std::vector<std::string> aliases;  // "--safe" for --dry-run
    std::string value;                 // "PID"; empty for a flag
    std::string description;
    std::string group;
};

inline constexpr const char* kHostOptionsGroup = "Host and state locations";
inline constexpr const char* kOutputOptionsGroup = "Output";
inline constexpr const char* kFleetOptionsGroup = "Fleet: many hosts over SSH or agents";

struct CommandLine {
    CommandLine();
    ~CommandLine();
    CommandLine(const CommandLine&) = delete;
    CommandLine& operator=(const CommandLine&) = delete;

    std::unique_ptr<CLI::App> app;

    GlobalFlags global_flags;
    bool wide = false;
    ListOptions list;
    std::string output;
    bool compat_list = false;
    KillOptions kill;
    bool compat_kill = false;
    ResetOptions reset;
    std::string compat_reset_target;
    CLI::Option* compat_reset = nullptr;
    AuditOptions audit;
    bool compat_audit = false;
    GuardCli guard_cli;
    // Every engine request's options, from the request tables (request_options.hpp).
    RequestOptions requests;
    std::vector<std::string> positional_pids;
    CLI::App* list_command = nullptr;
    CLI::App* kill_command = nullptr;
    CLI::App* reset_command = nullptr;
    CLI::App* audit_command = nullptr;
    CLI::App* doctor_command = nullptr;
    CLI::App* check_command = nullptr;
    CLI::App* agent_command = nullptr;
    CLI::App* top_command = nullptr;
    CLI::App* mcp_command = nullptr;
    std::vector<std::string> kill_pids;
    std::vector<std::string> reset_gpus;  // `gpukill reset 0`, as nvidia-smi users type it
    AgentCommandOptions agent;
    TopCommandOptions top;
    FleetOptions fleet;
    McpOptions mcp;

    // The options `command` takes, in registration order, its own first and the ones
    // every command takes last.
    std::vector<OptionDoc> options_for(Command command) const;
    // The options every command takes, and gpu-kill's command flags (--list, --kill ...).
    std::vector<OptionDoc> common_options() const;
    std::vector<OptionDoc> compatible_forms() const;
    // Every long option name, for "did you mean".
    std::vector<std::string> long_option_names() const;
};

}  // namespace gpukill::cli

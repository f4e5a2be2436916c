// The interface commands themselves (interface_commands.hpp), in gpukill-interfaces.
#include "cli/interface_commands.hpp"

#include <string>
#include <vector>

#include "cli/agent_command.hpp"
#include "cli/command_line.hpp"
#include "cli/diagnostics.hpp"
#include "cli/fleet_command.hpp"
#include "cli/mcp_command.hpp"
#include "cli/top_command.hpp"
#include "engine/outcome_codes.hpp"

namespace gpukill::cli {

int run_interface_command(Command command, CommandLine& cl, const GlobalOptions& global, int argc,
                          char** argv) {
    const std::vector<std::string> args(argv, argv + argc);
    if (fleet_requested(cl.fleet)) {
        if (cl.output == "json") cl.list.json = true;
        return run_fleet_command(command, cl, global);
    }
    switch (command) {
        case Command::agent:
            return run_agent_command(global, cl.agent, args);
        case Command::mcp:
            return run_mcp(global, cl.mcp);
        case Command::top: {
            auto request = cl.requests.request<engine::ListRequest>();
            if (!request) return usage_error(request.error().what);
            return run_top_command(global, cl.top, cl.list, *request);
        }
        default:
            return exit_code::invalid_arguments;  // not one of them: the caller checked
    }
}

}  // namespace gpukill::cli

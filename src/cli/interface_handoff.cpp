// The interface commands in `gpukill` (interface_commands.hpp): an exec of
// gpukill-interfaces with the same arguments, in the same process. Its path comes from
// this program's own file and the install layout fixed at build time (own_programs.hpp),
// never from PATH or the environment: what runs with this process's privileges is what
// was installed beside it.
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>

#include "cli/diagnostics.hpp"
#include "cli/interface_commands.hpp"
#include "engine/outcome_codes.hpp"
#include "sys/own_programs.hpp"

namespace gpukill::cli {
namespace {

// The command's name for the message: what the user asked for.
const char* command_word(Command command) {
    switch (command) {
        case Command::agent:
            return "agent";
        case Command::mcp:
            return "mcp";
        case Command::top:
            return "top";
        default:
            return "--remote/--hosts";
    }
}

}  // namespace

int run_interface_command(Command command, CommandLine& /*cl*/, const GlobalOptions& /*global*/,
                          int argc, char** argv) {
    const std::optional<OwnPrograms> programs = own_programs();
    if (!programs) {
        return print_error(
            fmt::format("cannot run {}: cannot read /proc/self/exe", command_word(command)),
            exit_code::failure);
    }
    const std::filesystem::path& target = programs->interfaces;
    std::fflush(stdout);
    std::fflush(stderr);
    // argv as given: argv[0] keeps the name the user typed; argv[argc] is null.
    (void)argc;
    ::execv(target.c_str(), argv);
    const int error = errno;
    return print_error(fmt::format("cannot run {}: {}: {} (this part of gpukill is installed "
                                   "beside it; reinstall the package)",
                                   command_word(command), target.string(), std::strerror(error)),
                       exit_code::failure);
}

}  // namespace gpukill::cli

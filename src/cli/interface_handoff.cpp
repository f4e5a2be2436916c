// The interface commands in `gpukill` (interface_commands.hpp): an exec of
// gpukill-interfaces with the same arguments, in the same process. Its path comes from
// this program's own file (/proc/self/exe) and the install layout fixed at build time
// (GPUKILL_INTERFACES_RELATIVE: bindir to LIBEXECDIR/gpukill), never from PATH or the
// environment: what runs with this process's privileges is what was installed beside it.
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>

#include "cli/diagnostics.hpp"
#include "cli/interface_commands.hpp"
#include "engine/outcome_codes.hpp"

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
    std::error_code failed;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", failed);
    if (failed) {
        return print_error(fmt::format("cannot run {}: cannot read /proc/self/exe: {}",
                                       command_word(command), failed.message()),
                           exit_code::failure);
    }
    const std::filesystem::path target =
        (self.parent_path() / GPUKILL_INTERFACES_RELATIVE / "gpukill-interfaces")
            .lexically_normal();
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

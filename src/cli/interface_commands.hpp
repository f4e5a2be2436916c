// The commands that serve, reach other hosts, or draw a screen: `agent`, `mcp`, `top`,
// and any command given --remote, --hosts or --hosts-file (the fleet). They need
// cpp-httplib, OpenSSL, libsystemd and ncurses, and loading those libraries costs more
// than everything else a `gpukill list` does at start-up (docs/BENCHMARKS.md). So the
// `gpukill` that scripts, epilogs and shells run every time links none of them, and
// hands these commands to `gpukill-interfaces`: the same command line and engine built
// with everything, installed in LIBEXECDIR/gpukill. The handoff is an exec in the same
// process (the same PID for systemd's Type=notify, the same descriptors, environment
// and capabilities), after the command line was checked here.
//
// One declaration, two definitions, chosen at link time: interface_commands.cpp runs
// the commands (gpukill-interfaces, the tests), interface_handoff.cpp execs
// gpukill-interfaces (gpukill).
#pragma once

#include "cli/command_id.hpp"
#include "cli/global_options.hpp"

namespace gpukill::cli {

struct CommandLine;

// Runs it (argv as main received it); the exit code.
int run_interface_command(Command command, CommandLine& cl, const GlobalOptions& global, int argc,
                          char** argv);

}  // namespace gpukill::cli

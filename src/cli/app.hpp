// The command line: subcommands (`list`, `doctor`) plus gpu-kill's compatible
// flags (`--list --details --watch`). main() only calls run_cli.
#pragma once

namespace gpukill::cli {

int run_cli(int argc, char** argv);

}  // namespace gpukill::cli

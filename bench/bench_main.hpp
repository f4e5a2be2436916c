// What every benchmark's main() does around its own work: find the programs it times
// beside itself, parse the command line (exit 3 on bad arguments, as gpukill itself),
// and run with the interrupt handlers installed so Ctrl-C ends it through RAII cleanup
// of every process it started.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace gpukill::bench {

// The path of program `name` in this benchmark's own directory (the build's bin/), the
// default for the binaries a benchmark runs.
std::string beside_this_program(const char* name);

// Empty when parsing succeeded; else the exit code (0 after --help).
std::optional<int> parse_arguments(CLI::App& app, int argc, char** argv);

// Runs `body` and maps how it ended to the benchmarks' exit codes: its own result,
// 130 when interrupted, 1 on an error (printed as "NAME: what").
int run_interruptible(const char* name, const std::function<int()>& body);

}  // namespace gpukill::bench

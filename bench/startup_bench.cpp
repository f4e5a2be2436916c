// gpukill_startup_bench: what starting gpukill costs before it reads anything of the
// host, side by side in one run: `gpukill list --json` and `gpukill --version` over an
// empty host (procfs, sysfs and devfs are empty directories), against the floor program
// (only the C++ runtime) doing the same nothing, and optionally against another gpukill
// build (--baseline: the tree before a change). Every `gpukill list`, `kill` or `check`
// pays this once: on a host of 3,000 processes it is most of what a list costs beyond
// the /proc walk itself. See docs/BENCHMARKS.md ("Start-up").
//
// Exit status: 0, 1 the benchmark could not run, 3 invalid arguments, 130 interrupted.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_main.hpp"
#include "interrupt.hpp"
#include "machine.hpp"
#include "subprocess.hpp"
#include "temp_tree.hpp"
#include "timing.hpp"

namespace gpukill::bench {
namespace {

struct Options {
    std::string gpukill;
    std::string baseline;
    std::string floor;
    std::size_t rounds = 40;
};

struct Command {
    std::string name;
    std::vector<std::string> argv;
    std::vector<double> wall_s;
    std::vector<double> cpu_s;
};

int run(const Options& options) {
    const TempTree tree("gpukill-startup-bench");
    const std::string empty = tree.root() + "/empty";
    std::filesystem::create_directories(empty);
    const std::vector<std::string> env = environment_with(
        {"GPUKILL_STATE_DIR=" + tree.root() + "/state",
         "GPUKILL_CONFIG_DIR=" + tree.root() + "/config", "GPUKILL_PROCFS=" + empty,
         "GPUKILL_SYSFS=" + empty, "GPUKILL_DEVFS=" + empty},
        {"GPUKILL_NVML_LIBRARY"});

    // Each build's commands, in this order: the gpukill under test first, then --baseline's.
    constexpr std::size_t kCommandsPerBuild = 2;
    std::vector<Command> commands;
    const auto add_gpukill = [&](const std::string& label, const std::string& binary) {
        commands.push_back({label + " list --json", {binary, "list", "--json"}, {}, {}});
        commands.push_back({label + " --version", {binary, "--version"}, {}, {}});
    };
    add_gpukill("gpukill", options.gpukill);
    if (!options.baseline.empty()) add_gpukill("baseline", options.baseline);
    commands.push_back({"floor", {options.floor, empty + "/nothing/", empty}, {}, {}});

    // Round r starts with command r mod n, so that no command always runs first.
    for (std::size_t round = 0; round < options.rounds + 1; ++round) {
        for (std::size_t k = 0; k < commands.size(); ++k) {
            throw_if_interrupted();
            Command& command = commands[(round + k) % commands.size()];
            const ProcessRun run = run_process(command.argv, env);
            if (run.exit_code != 0) {
                throw std::runtime_error(
                    fmt::format("{} exited {}: {}", command.name, run.exit_code, run.err));
            }
            if (round == 0) continue;  // warm-up: the page cache, the state directory
            command.wall_s.push_back(run.wall_s);
            command.cpu_s.push_back(run.cpu_s);
        }
    }

    const Machine machine = describe_machine();
    std::cout << fmt::format(
        "Machine: {} CPUs, Linux {}, {}; load average {}. {} rounds after 1 warm-up, "
        "commands interleaved round-robin.\n\n",
        machine.cpus, machine.kernel, machine.date_utc, load_average(), options.rounds);
    std::cout << "| command | median wall ms | median CPU ms |\n|---|---:|---:|\n";
    for (const Command& command : commands) {
        std::cout << fmt::format("| {} | {:.2f} | {:.2f} |\n", command.name,
                                 median(command.wall_s) * 1e3, median(command.cpu_s) * 1e3);
    }
    const Command& floor = commands.back();
    std::cout << "\n| comparison (median of per-round ratios) | CPU | wall |\n|---|---:|---:|\n";
    for (std::size_t i = 0; i + 1 < commands.size(); ++i) {
        std::cout << fmt::format("| {} / floor | {:.2f}× | {:.2f}× |\n", commands[i].name,
                                 paired_median(commands[i].cpu_s, floor.cpu_s),
                                 paired_median(commands[i].wall_s, floor.wall_s));
    }
    if (!options.baseline.empty()) {
        for (std::size_t i = 0; i < kCommandsPerBuild; ++i) {
            const Command& before = commands[i + kCommandsPerBuild];
            std::cout << fmt::format("| {} / {} | {:.2f}× | {:.2f}× |\n", commands[i].name,
                                     before.name, paired_median(commands[i].cpu_s, before.cpu_s),
                                     paired_median(commands[i].wall_s, before.wall_s));
        }
    }
    return 0;
}

}  // namespace
}  // namespace gpukill::bench

int main(int argc, char** argv) {
    using namespace gpukill::bench;
    Options options;
    options.gpukill = beside_this_program("gpukill");
    options.floor = beside_this_program("gpukill_proc_fd_floor");

    CLI::App app{"Times gpukill's start-up against a program with only the C++ runtime."};
    app.add_option("--rounds", options.rounds, "timed rounds")
        ->capture_default_str()
        ->check(CLI::Range(1, 100'000));
    app.add_option("--gpukill", options.gpukill, "gpukill binary")->capture_default_str();
    app.add_option("--baseline", options.baseline, "another gpukill binary to compare with");
    app.add_option("--floor", options.floor, "floor binary")->capture_default_str();
    if (auto code = parse_arguments(app, argc, argv)) return *code;
    return run_interruptible("gpukill_startup_bench", [&] { return run(options); });
}

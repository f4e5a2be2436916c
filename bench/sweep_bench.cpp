// gpukill_sweep_bench: times gpukill's device-holder sweep against the floor (a bare
// readlink walk of /proc/*/fd) and against `fuser -v`, side by side in one run, over a
// population of live processes started for the purpose. See docs/BENCHMARKS.md.
//
// Exit status: 0 every target met, 2 a target missed, 1 the benchmark could not run,
// 3 invalid arguments, 130 interrupted (the population is killed and reaped in every case).
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <stdexcept>

#include "bench_main.hpp"
#include "interrupt.hpp"
#include "machine.hpp"
#include "population.hpp"
#include "proc_fd_walk.hpp"
#include "report.hpp"
#include "timing.hpp"
#include "tools.hpp"

namespace gpukill::bench {
namespace {

struct Options {
    PopulationConfig population;
    std::size_t rounds = 15;
    std::size_t warmup = 1;
    ToolPaths paths;
    std::string json_path;
};

std::string pid_list(const std::vector<pid_t>& pids) {
    std::string text;
    for (std::size_t i = 0; i < pids.size() && i < 8; ++i) text += " " + std::to_string(pids[i]);
    return pids.size() > 8 ? text + " ..." : text;
}

void check_holders(const Tool& tool, const std::vector<pid_t>& found,
                   const std::vector<pid_t>& expected) {
    if (found == expected) return;
    std::vector<pid_t> missing;
    std::vector<pid_t> extra;
    std::set_difference(expected.begin(), expected.end(), found.begin(), found.end(),
                        std::back_inserter(missing));
    std::set_difference(found.begin(), found.end(), expected.begin(), expected.end(),
                        std::back_inserter(extra));
    throw std::runtime_error(fmt::format("{} found {} holders, expected {}; missing:{}; extra:{}",
                                         tool.command, found.size(), expected.size(),
                                         pid_list(missing), pid_list(extra)));
}

int run(const Options& options) {
    std::cerr << fmt::format("starting {} processes ({} holding device files)...\n",
                             options.population.processes, options.population.holders);
    const Stopwatch startup;
    const Population population(options.population);
    std::cerr << fmt::format("population ready in {:.1f} s (devfs {})\n", startup.elapsed_s(),
                             population.devfs());

    RunInfo info;
    const Machine machine = describe_machine();
    info.date_utc = machine.date_utc;
    info.kernel = machine.kernel;
    info.cpus = machine.cpus;
    info.processes = population.size();
    info.holders = population.holder_pids().size();
    info.rounds = options.rounds;
    info.warmup = options.warmup;
    const FloorResult census = walk_proc_fds("/proc", population.devfs() + "/");
    info.fd_links = census.links_read;
    info.host_processes = census.processes;
    info.load_before = load_average();

    const std::vector<Tool> tools = make_tools(population, options.paths);
    std::vector<ToolTimes> times;
    for (const Tool& tool : tools) times.push_back(ToolTimes{&tool, {}, {}});
    const std::vector<pid_t> expected = population.holder_pids();

    // Round r starts with tool r mod n: each tool runs in every position equally often,
    // so neither cache warmth left by the previous tool nor drift favours one of them.
    const std::size_t total = options.warmup + options.rounds;
    for (std::size_t round = 0; round < total; ++round) {
        for (std::size_t k = 0; k < tools.size(); ++k) {
            throw_if_interrupted();
            const std::size_t index = (round + k) % tools.size();
            const Sample sample = tools[index].run();
            check_holders(tools[index], sample.holders, expected);
            if (round < options.warmup) continue;
            times[index].wall_s.push_back(sample.wall_s);
            times[index].cpu_s.push_back(sample.cpu_s);
        }
        std::cerr << fmt::format("\rround {}/{}", round + 1, total) << std::flush;
    }
    std::cerr << "\n";
    info.load_after = load_average();

    print_markdown(std::cout, info, times);
    if (!options.json_path.empty()) {
        std::ofstream json(options.json_path);
        json << to_json(info, times).dump(2) << "\n";
        if (!json) throw std::runtime_error("cannot write " + options.json_path);
    }
    return targets_met(times) ? 0 : 2;
}

}  // namespace
}  // namespace gpukill::bench

int main(int argc, char** argv) {
    using namespace gpukill::bench;
    Options options;
    options.paths = {beside_this_program("gpukill"), beside_this_program("gpukill_proc_fd_floor"),
                     "fuser"};

    CLI::App app{"Times gpukill's device-holder sweep against a bare /proc walk and fuser."};
    app.add_option("--processes", options.population.processes, "processes to start")
        ->capture_default_str()
        ->check(CLI::Range(1, 1'000'000));
    app.add_option("--fds", options.population.fds_per_process, "open fds per process")
        ->capture_default_str()
        ->check(CLI::Range(4, 1000));
    app.add_option("--holders", options.population.holders, "processes that also hold device files")
        ->capture_default_str()
        ->check(CLI::Range(1, 1'000'000));
    app.add_option("--rounds", options.rounds, "timed rounds")
        ->capture_default_str()
        ->check(CLI::Range(1, 10'000));
    app.add_option("--warmup", options.warmup, "untimed rounds first")->capture_default_str();
    app.add_option("--gpukill", options.paths.gpukill, "gpukill binary")->capture_default_str();
    app.add_option("--floor", options.paths.floor, "floor binary")->capture_default_str();
    app.add_option("--fuser", options.paths.fuser, "fuser binary")->capture_default_str();
    app.add_option("--json", options.json_path, "also write the results as JSON here");
    if (auto code = parse_arguments(app, argc, argv)) return *code;
    if (options.population.holders > options.population.processes) {
        std::cerr << "gpukill_sweep_bench: --holders exceeds --processes\n";
        return 3;
    }

    return run_interruptible("gpukill_sweep_bench", [&] { return run(options); });
}

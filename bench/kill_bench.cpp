// gpukill_kill_bench: times `gpukill kill` from command start to confirmed exit, side by
// side with the shell idiom `kill P; while kill -0 P; do sleep 0.1; done`, on a plain
// process and on a gpusim workload; then 200 targets at once, a quarter of them ignoring
// SIGTERM, with --timeout-secs 1 --force. Every target is a process this benchmark
// started (target_group.hpp). See docs/BENCHMARKS.md.
//
// Exit status: 0 every target met, 2 a target missed, 1 the benchmark could not run or a
// correctness check failed, 3 invalid arguments, 130 interrupted (every process it
// started is killed and reaped in every case).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <stdexcept>

#include "bench_main.hpp"
#include "capacity.hpp"
#include "interrupt.hpp"
#include "kill_parts.hpp"
#include "kill_report.hpp"
#include "machine.hpp"
#include "population.hpp"
#include "sim_host.hpp"
#include "subprocess.hpp"
#include "target_group.hpp"
#include "temp_tree.hpp"

namespace gpukill::bench {
namespace {

// Processes that spin until this object goes: the CPU contention of a busy node.
class CpuHogs {
  public:
    explicit CpuHogs(std::size_t count) {
        for (std::size_t i = 0; i < count; ++i) {
            const pid_t child = ::fork();
            if (child == 0) {
                for (volatile unsigned long spin = 0;; spin = spin + 1) {
                }
            }
            if (child < 0) throw std::runtime_error("fork failed for a CPU hog");
            children_.push_back(child);
        }
    }
    ~CpuHogs() {
        for (const pid_t child : children_) ::kill(child, SIGKILL);
        for (const pid_t child : children_) ::waitpid(child, nullptr, 0);
    }
    CpuHogs(const CpuHogs&) = delete;
    CpuHogs& operator=(const CpuHogs&) = delete;

  private:
    std::vector<pid_t> children_;
};

struct Options {
    std::string gpukill;
    std::string gpusim;
    std::size_t rounds = 30;
    std::size_t warmup = 1;
    BatchConfig batch;
    std::size_t background = 0;  // idle processes added to the host
    std::size_t cpu_hogs = 0;    // CPU-bound processes running throughout (contention)
    std::string state_dir;       // gpukill's GPUKILL_STATE_DIR; empty: in the temporary tree
    std::string part = "all";    // all, latency or batch
    std::string json_path;
};

// gpukill's environment: its audit log and configuration in the temporary tree (writing
// the audit log is part of the real cost), plus what the variant needs.
std::vector<std::string> gpukill_env(const TempTree& tree, const std::string& state_dir,
                                     const std::vector<std::string>& extra,
                                     const std::vector<std::string>& unset) {
    std::vector<std::string> set = {"GPUKILL_STATE_DIR=" + state_dir,
                                    "GPUKILL_CONFIG_DIR=" + tree.root() + "/config"};
    set.insert(set.end(), extra.begin(), extra.end());
    return environment_with(set, unset);
}

int run(const Options& options) {
    // The batch's targets, the keeper, the background processes, gpukill: all at once.
    const std::size_t processes = options.batch.targets + options.background + 2;
    if (const std::string problems = capacity_problems(processes, 16); !problems.empty()) {
        throw std::runtime_error("this host cannot start " + std::to_string(processes) +
                                 " processes:\n" + problems);
    }
    // gpukill reads every process on the host twice or more per kill (its fd sweep and the
    // process table), so its fixed cost grows with their number: this adds to them.
    std::optional<Population> background;
    if (options.background > 0) {
        std::cerr << fmt::format("starting {} background processes...\n", options.background);
        background.emplace(PopulationConfig{.processes = options.background, .holders = 1});
    }
    // Contention as on a busy node: processes that only spin, on every core, while both
    // the idiom and gpukill are timed. Killed and reaped when the run ends.
    CpuHogs hogs(options.cpu_hogs);
    const TempTree tree("gpukill-kill-bench");
    const std::string state_dir =
        options.state_dir.empty() ? tree.root() + "/state" : options.state_dir;
    std::filesystem::create_directories(state_dir);
    // The plain variant: no NVML library named (none is installed here, so NVML reports
    // "not loaded"; on a host with a driver it would load) and an empty devfs to sweep.
    const std::string empty_devfs = tree.root() + "/empty-dev";
    std::filesystem::create_directory(empty_devfs);
    const KillCommand plain_gpukill{
        options.gpukill,
        gpukill_env(tree, state_dir, {"GPUKILL_DEVFS=" + empty_devfs},
                    {"GPUKILL_NVML_LIBRARY", "GPUSIM_ROOT", "GPUKILL_PROCFS", "GPUKILL_SYSFS"})};

    std::cerr << "setting up the simulated host...\n";
    SimHost sim(options.gpusim, tree.root() + "/sim");
    const KillCommand sim_gpukill{
        options.gpukill,
        gpukill_env(tree, state_dir, sim.gpukill_env(), {"GPUKILL_PROCFS", "GPUKILL_SYSFS"})};

    // Declared after the simulated host's directory exists and before the sources: the
    // group is destroyed (every member killed and reaped) before the tree is removed.
    TargetGroup group;
    TargetSource plain(group, nullptr);
    TargetSource simulated(group, &sim);

    KillBenchInfo info;
    info.machine = describe_machine();
    info.rounds = options.rounds;
    info.warmup = options.warmup;
    info.state_dir_fs = filesystem_type(state_dir);
    info.host_processes = count_processes();
    info.load_before = load_average();

    std::vector<LatencyResult> latency;
    if (options.part != "batch") {
        latency.push_back(run_latency(plain, plain_gpukill, options.rounds, options.warmup));
        latency.push_back(run_latency(simulated, sim_gpukill, options.rounds, options.warmup));
    }
    std::vector<BatchResult> batch;
    if (options.part != "latency") {
        batch.push_back(run_batch(plain, plain_gpukill, options.batch));
        batch.push_back(run_batch(simulated, sim_gpukill, options.batch));
    }
    info.load_after = load_average();

    print_kill_markdown(std::cout, info, latency, batch);
    if (!options.json_path.empty()) {
        std::ofstream json(options.json_path);
        json << kill_to_json(info, latency, batch).dump(2) << "\n";
        if (!json) throw std::runtime_error("cannot write " + options.json_path);
    }
    return kill_targets_met(latency, batch) ? 0 : 2;
}

}  // namespace
}  // namespace gpukill::bench

int main(int argc, char** argv) {
    using namespace gpukill::bench;
    Options options;
    options.gpukill = beside_this_program("gpukill");
    options.gpusim = beside_this_program("gpusim");

    CLI::App app{
        "Times gpukill kill against the shell kill / kill -0 idiom, and a 200-target kill."};
    app.add_option("--rounds", options.rounds, "timed latency rounds")
        ->capture_default_str()
        ->check(CLI::Range(1, 10'000));
    app.add_option("--warmup", options.warmup, "untimed rounds (and batch runs) first")
        ->capture_default_str()
        ->check(CLI::Range(0, 100));
    app.add_option("--batch-runs", options.batch.runs, "timed batch runs")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000));
    app.add_option("--targets", options.batch.targets, "targets in a batch run")
        ->capture_default_str()
        ->check(CLI::Range(1, 10'000));
    app.add_option("--ignoring", options.batch.ignoring, "of them ignoring SIGTERM")
        ->capture_default_str()
        ->check(CLI::Range(0, 10'000));
    app.add_option("--timeout-secs", options.batch.timeout_secs, "the batch's --timeout-secs")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 60.0));
    app.add_option("--gpukill", options.gpukill, "gpukill binary")->capture_default_str();
    app.add_option("--gpusim", options.gpusim, "gpusim binary")->capture_default_str();
    app.add_option("--background", options.background,
                   "idle processes (20 fds each) to add to the host first")
        ->capture_default_str()
        ->check(CLI::Range(0, 100'000));
    app.add_option("--cpu-hogs", options.cpu_hogs,
                   "CPU-bound processes to run throughout (contention: one a core)")
        ->capture_default_str()
        ->check(CLI::Range(0, 64));
    app.add_option("--part", options.part, "which part to run")
        ->capture_default_str()
        ->check(CLI::IsMember({"all", "latency", "batch"}));
    app.add_option("--state-dir", options.state_dir,
                   "gpukill's GPUKILL_STATE_DIR (audit log), e.g. on tmpfs to see what syncing "
                   "it costs; default: in the temporary tree");
    app.add_option("--json", options.json_path, "also write the results as JSON here");
    if (auto code = parse_arguments(app, argc, argv)) return *code;
    if (options.batch.ignoring > options.batch.targets) {
        std::cerr << "gpukill_kill_bench: --ignoring exceeds --targets\n";
        return 3;
    }
    options.batch.warmup = options.warmup;
    // Targets are exec'd without a PATH search (target_child.cpp).
    options.gpusim = std::filesystem::absolute(options.gpusim).string();

    return run_interruptible("gpukill_kill_bench", [&] { return run(options); });
}

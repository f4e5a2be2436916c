#include "kill_parts.hpp"

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <iostream>
#include <stdexcept>

#include "interrupt.hpp"
#include "subprocess.hpp"
#include "timing.hpp"

namespace gpukill::bench {
namespace {

struct Measurement {
    double wall_s = 0;
    double cpu_s = 0;
    double target_exit_s = NAN;  // spawn to the last target's exit; NaN when none ended
};

struct Contender {
    Series series;
    std::function<Measurement()> measure;
};

// argv as one line for messages; a batch's 400 PID arguments are elided.
std::string join(const std::vector<std::string>& words) {
    constexpr std::size_t kShown = 6;
    std::string text;
    for (std::size_t i = 0; i < words.size() && i < kShown; ++i) {
        text += (text.empty() ? "" : " ") + words[i];
    }
    if (words.size() > kShown) {
        text += " ... (" + std::to_string(words.size() - kShown) + " more arguments)";
    }
    return text;
}

ProcessRun run_expecting_success(const std::vector<std::string>& argv,
                                 const std::vector<std::string>& env) {
    ProcessRun run = run_process(argv, env);
    if (run.exit_code != 0) {
        const std::string output = run.out + run.err;
        throw std::runtime_error("`" + join(argv) + "` exited with " +
                                 std::to_string(run.exit_code) + ":\n" + output.substr(0, 2000));
    }
    return run;
}

// Runs argv against `targets` and checks they all ended as they should.
Measurement kill_and_confirm(TargetSource& source, const TargetSet& targets,
                             const std::vector<std::string>& argv,
                             const std::vector<std::string>& env) {
    const ProcessRun run = run_expecting_success(argv, env);
    const double last_exit_s = source.confirm_ended(targets, join(argv));
    return {run.wall_s, run.cpu_s, last_exit_s - run.started_s};
}

Series named(std::string id, std::string label, std::string command) {
    Series series;
    series.id = std::move(id);
    series.label = std::move(label);
    series.command = std::move(command);
    return series;
}

Measurement gpukill_kill(TargetSource& source, const KillCommand& gpukill) {
    const TargetSet target = source.start(1, 0);
    // --any-process: plain targets hold no GPU, and the comparison is the signal path.
    const std::vector<std::string> argv = {gpukill.gpukill, "kill", "--any-process", "--pid",
                                           std::to_string(target.pids[0])};
    return kill_and_confirm(source, target, argv, gpukill.env);
}

// dash's kill is a builtin, its sleep an exec of /bin/sleep: the idiom as people write it.
Measurement shell_idiom(TargetSource& source, const std::vector<std::string>& env) {
    const TargetSet target = source.start(1, 0);
    const std::string p = std::to_string(target.pids[0]);
    const std::vector<std::string> argv = {
        "/bin/sh", "-c", "kill " + p + "; while kill -0 " + p + " 2>/dev/null; do sleep 0.1; done"};
    return kill_and_confirm(source, target, argv, env);
}

Measurement gpukill_dry_run(TargetSource& source, const KillCommand& gpukill) {
    const TargetSet target = source.start(1, 0);
    const std::vector<std::string> argv = {
        gpukill.gpukill, "kill", "--any-process", "--pid", std::to_string(target.pids[0]),
        "--dry-run"};
    const ProcessRun run = run_expecting_success(argv, gpukill.env);
    source.confirm_untouched_and_discard(target, join(argv));
    return {run.wall_s, run.cpu_s, NAN};
}

// A command that ends no target.
Measurement timed(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
    const ProcessRun run = run_expecting_success(argv, env);
    return {run.wall_s, run.cpu_s, NAN};
}

// The contenders refer to `source`, `gpukill` and `shell_env`, which outlive them.
std::vector<Contender> latency_contenders(TargetSource& source, const KillCommand& gpukill,
                                          const std::vector<std::string>& shell_env) {
    const std::string& bin = gpukill.gpukill;
    std::vector<Contender> c;
    c.push_back({named("gpukill", "`gpukill kill --pid P`", bin + " kill --pid P"),
                 [&] { return gpukill_kill(source, gpukill); }});
    c.push_back({named("idiom", "shell idiom (`sh -c`)",
                       "sh -c 'kill P; while kill -0 P 2>/dev/null; do sleep 0.1; done'"),
                 [&] { return shell_idiom(source, shell_env); }});
    c.push_back({named("dry_run", "`gpukill kill --pid P --dry-run` (plan only)",
                       bin + " kill --pid P --dry-run"),
                 [&] { return gpukill_dry_run(source, gpukill); }});
    c.push_back({named("list", "`gpukill list` (discovery only)", bin + " list"), [&] {
                     return timed({bin, "list"}, gpukill.env);
                 }});
    c.push_back(
        {named("startup", "`gpukill --version` (process start-up)", bin + " --version"), [&] {
             return timed({bin, "--version"}, gpukill.env);
         }});
    return c;
}

void record(Series& series, const Measurement& m) {
    series.wall_s.push_back(m.wall_s);
    series.cpu_s.push_back(m.cpu_s);
    if (!std::isnan(m.target_exit_s)) series.target_exit_s.push_back(m.target_exit_s);
}

}  // namespace

LatencyResult run_latency(TargetSource& source, const KillCommand& gpukill, std::size_t rounds,
                          std::size_t warmup) {
    const auto shell_env = environment_with({}, {});
    std::vector<Contender> contenders = latency_contenders(source, gpukill, shell_env);
    // Round r starts with contender r mod n: each runs in every position equally often,
    // so neither what ran before it nor drift favours one of them.
    const std::size_t total = warmup + rounds;
    for (std::size_t round = 0; round < total; ++round) {
        for (std::size_t k = 0; k < contenders.size(); ++k) {
            throw_if_interrupted();
            Contender& contender = contenders[(round + k) % contenders.size()];
            const Measurement m = contender.measure();
            if (round >= warmup) record(contender.series, m);
        }
        std::cerr << fmt::format("\rlatency ({}): round {}/{}", source.variant(), round + 1, total)
                  << std::flush;
    }
    std::cerr << "\n";

    LatencyResult result{source.variant(), source.description(), {}};
    for (Contender& contender : contenders) result.tools.push_back(std::move(contender.series));
    return result;
}

BatchResult run_batch(TargetSource& source, const KillCommand& gpukill, const BatchConfig& config) {
    const std::string timeout = fmt::format("{}", config.timeout_secs);
    BatchResult result{source.variant(), source.description(), config.targets, config.ignoring, {}};
    result.run = named("batch",
                       fmt::format("`gpukill kill` {} targets, {} ignoring SIGTERM", config.targets,
                                   config.ignoring),
                       fmt::format("{} kill --pid P1 ... --pid P{} --timeout-secs {} --force",
                                   gpukill.gpukill, config.targets, timeout));
    const std::size_t total = config.warmup + config.runs;
    for (std::size_t run = 0; run < total; ++run) {
        throw_if_interrupted();
        // A gpusim workload allocates this much, so that 200 fit on the two simulated GPUs.
        const Stopwatch setup;
        const TargetSet targets = source.start(config.targets, config.ignoring, "256M");
        const double setup_s = setup.elapsed_s();
        std::vector<std::string> argv = {gpukill.gpukill, "kill", "--any-process"};
        for (pid_t pid : targets.pids) {
            argv.emplace_back("--pid");
            argv.push_back(std::to_string(pid));
        }
        for (const char* word : {"--timeout-secs", timeout.c_str(), "--force"})
            argv.emplace_back(word);
        const Measurement m = kill_and_confirm(source, targets, argv, gpukill.env);
        if (run >= config.warmup) record(result.run, m);
        std::cerr << fmt::format(
                         "\rbatch ({}): run {}/{}: targets started in {:.2f} s, killed in "
                         "{:.3f} s",
                         source.variant(), run + 1, total, setup_s, m.wall_s)
                  << std::flush;
    }
    std::cerr << "\n";
    return result;
}

}  // namespace gpukill::bench

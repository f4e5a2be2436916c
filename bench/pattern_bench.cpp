// gpukill_pattern_bench: the pattern engine before and after RE2, side by side in one
// run, on what the selectors search: the names and command lines of a 3,000-process GPU
// host (process_table.hpp). "Before" is the hand-written engine of commit 17ce2d8, kept
// in bench/pattern_before.cpp for this comparison only; "after" is src/model/pattern.cpp,
// the one gpukill runs. For each selector, rounds alternate which engine goes first:
//   compile   the pattern compiled alone (median of --compiles per round);
//   select    a fresh compile and one search of every process (search_process), which
//             is what `gpukill kill --filter` or a guard cycle does;
//   rescan    a second search of every process with the same compiled pattern.
// Both engines must select the same processes, or the benchmark fails. Results are in
// docs/BENCHMARKS.md ("Patterns through RE2"); bench/run_pattern_bench.sh runs it.
//
// Exit status: 0, 1 the benchmark could not run (or the engines disagree), 3 invalid
// arguments, 130 interrupted.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bench_main.hpp"
#include "interrupt.hpp"
#include "machine.hpp"
#include "model/pattern.hpp"
#include "pattern_before.hpp"
#include "process_table.hpp"
#include "timing.hpp"

namespace gpukill::bench {
namespace {

struct Options {
    std::size_t processes = 3000;
    std::size_t rounds = 21;
    std::size_t compiles = 50;
};

struct Selector {
    const char* use;
    const char* pattern;
};

// Patterns as users and the shipped examples write them, and the backtracking case.
const Selector kSelectors[] = {
    {"a name (`--filter python`)", "python"},
    {"guard rule of docs/examples/guard.yaml", "python[0-9.]* .*train\\.py"},
    {"launchers", "torchrun|deepspeed|accelerate"},
    {"miner words, case-insensitive", "(?i)xmrig|ethminer|stratum\\+tcp"},
    {"anchored, classes, counts",
     "^/opt/conda/envs/[^/]+/bin/python3? -u train\\.py .*--local_rank=\\d+"},
    {"word boundaries", "\\bipykernel_launcher\\b|\\bvllm\\b"},
    {"a container id", "[0-9a-f]{64}"},
    {"backtracking case", "(a|a)*$x"},
};

struct Timings {
    std::vector<double> compile_s;
    std::vector<double> select_s;
    std::vector<double> rescan_s;
    std::size_t matched = 0;
};

std::size_t g_sink = 0;  // read at the end, so that no compile is optimised away

template <class CompiledPattern>
CompiledPattern compile_or_throw(const std::string& pattern) {
    auto compiled = CompiledPattern::compile(pattern);
    if (!compiled) throw std::runtime_error(pattern + ": " + compiled.error().what);
    return std::move(*compiled);
}

template <class CompiledPattern>
std::size_t scan(const CompiledPattern& pattern, const std::vector<ProcessInfo>& table) {
    std::size_t matched = 0;
    for (const ProcessInfo& info : table) {
        if (search_process(pattern, info)) ++matched;  // the engine's own, found by ADL
    }
    return matched;
}

template <class CompiledPattern>
void measure(const std::string& pattern, const std::vector<ProcessInfo>& table,
             const Options& options, Timings& timings) {
    double start = clock_s(CLOCK_MONOTONIC);
    for (std::size_t i = 0; i < options.compiles; ++i) {
        g_sink += compile_or_throw<CompiledPattern>(pattern).source().size();
    }
    timings.compile_s.push_back((clock_s(CLOCK_MONOTONIC) - start) /
                                static_cast<double>(options.compiles));

    start = clock_s(CLOCK_MONOTONIC);
    const CompiledPattern fresh = compile_or_throw<CompiledPattern>(pattern);
    timings.matched = scan(fresh, table);
    timings.select_s.push_back(clock_s(CLOCK_MONOTONIC) - start);

    start = clock_s(CLOCK_MONOTONIC);
    g_sink += scan(fresh, table);
    timings.rescan_s.push_back(clock_s(CLOCK_MONOTONIC) - start);
}

std::size_t bytes_searched(const std::vector<ProcessInfo>& table) {
    std::size_t bytes = 0;
    for (const ProcessInfo& info : table) {
        std::size_t line = 0;
        for (const std::string& argument : info.cmdline) line += argument.size() + 1;
        bytes += info.comm.size() + std::min(line, kMaxCommandLineSearched);
    }
    return bytes;
}

int run(const Options& options) {
    const std::vector<ProcessInfo> table = gpu_host_process_table(options.processes);
    struct Row {
        const Selector* selector;
        Timings before;
        Timings after;
    };
    std::vector<Row> rows;
    for (const Selector& selector : kSelectors) rows.push_back({&selector, {}, {}});

    for (std::size_t round = 0; round < options.rounds + 1; ++round) {
        for (Row& row : rows) {
            throw_if_interrupted();
            Timings before;
            Timings after;
            if (round % 2 == 0) {
                measure<bench::before::Pattern>(row.selector->pattern, table, options, before);
                measure<Pattern>(row.selector->pattern, table, options, after);
            } else {
                measure<Pattern>(row.selector->pattern, table, options, after);
                measure<bench::before::Pattern>(row.selector->pattern, table, options, before);
            }
            if (before.matched != after.matched) {
                throw std::runtime_error(
                    fmt::format("{}: the engine before RE2 selects {} processes, the one after {}",
                                row.selector->pattern, before.matched, after.matched));
            }
            if (round == 0) continue;  // warm-up: caches, page faults, the allocator
            for (auto [from, to] :
                 {std::pair{&before, &row.before}, std::pair{&after, &row.after}}) {
                to->compile_s.push_back(from->compile_s.front());
                to->select_s.push_back(from->select_s.front());
                to->rescan_s.push_back(from->rescan_s.front());
                to->matched = from->matched;
            }
        }
    }

    std::size_t kernel_threads = 0;
    for (const ProcessInfo& info : table) kernel_threads += info.kernel_thread ? 1 : 0;
    const Machine machine = describe_machine();
    std::cout << fmt::format(
        "Machine: {} CPUs, Linux {}, {}; load average {}. {} processes ({} kernel threads), "
        "{} bytes of names and command lines searched per scan. {} rounds after 1 warm-up, "
        "engines alternating first; compile: median of {} per round.\n\n",
        machine.cpus, machine.kernel, machine.date_utc, load_average(), table.size(),
        kernel_threads, bytes_searched(table), options.rounds, options.compiles);
    std::cout << "| selector | pattern | selected | compile µs before → after | select ms "
                 "before → after | rescan ms before → after |\n|---|---|---:|---:|---:|---:|\n";
    for (const Row& row : rows) {
        std::cout << fmt::format(
            "| {} | `{}` | {} | {:.1f} → {:.1f} | {:.2f} → {:.2f} | {:.2f} → {:.2f} |\n",
            row.selector->use, row.selector->pattern, row.after.matched,
            median(row.before.compile_s) * 1e6, median(row.after.compile_s) * 1e6,
            median(row.before.select_s) * 1e3, median(row.after.select_s) * 1e3,
            median(row.before.rescan_s) * 1e3, median(row.after.rescan_s) * 1e3);
    }
    std::cout << "\n| selector | compile after / before | select after / before | rescan "
                 "after / before |\n|---|---:|---:|---:|\n";
    for (const Row& row : rows) {
        std::cout << fmt::format("| {} | {:.2f}× | {:.2f}× | {:.3f}× |\n", row.selector->use,
                                 paired_median(row.after.compile_s, row.before.compile_s),
                                 paired_median(row.after.select_s, row.before.select_s),
                                 paired_median(row.after.rescan_s, row.before.rescan_s));
    }
    std::cerr << "(sink " << g_sink << ")\n";
    return 0;
}

}  // namespace
}  // namespace gpukill::bench

int main(int argc, char** argv) {
    using namespace gpukill::bench;
    Options options;
    CLI::App app{
        "Times gpukill's pattern engine before and after RE2 on a GPU host's "
        "command lines."};
    app.add_option("--processes", options.processes, "processes in the table")
        ->capture_default_str()
        ->check(CLI::Range(1, 1'000'000));
    app.add_option("--rounds", options.rounds, "timed rounds")
        ->capture_default_str()
        ->check(CLI::Range(1, 100'000));
    app.add_option("--compiles", options.compiles, "compiles timed per round")
        ->capture_default_str()
        ->check(CLI::Range(1, 1'000'000));
    if (auto code = parse_arguments(app, argc, argv)) return *code;
    return run_interruptible("gpukill_pattern_bench", [&] { return run(options); });
}

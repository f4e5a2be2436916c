#include "kill_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "timing.hpp"

namespace gpukill::bench {
namespace {

const Series* find(const LatencyResult& result, const char* id) {
    const auto it = std::find_if(result.tools.begin(), result.tools.end(),
                                 [&](const Series& s) { return s.id == id; });
    return it == result.tools.end() ? nullptr : &*it;
}

// The judged numbers of one latency variant.
struct LatencyVerdict {
    double gpukill_median_s = NAN;
    double ratio_paired = NAN;      // median over rounds of idiom / gpukill
    double ratio_of_medians = NAN;  // median(idiom) / median(gpukill)
    bool fast_enough = false;
    bool ratio_met = false;
};

LatencyVerdict judge(const LatencyResult& result) {
    LatencyVerdict verdict;
    const Series* gpukill = find(result, "gpukill");
    const Series* idiom = find(result, "idiom");
    if (gpukill == nullptr || idiom == nullptr) return verdict;
    verdict.gpukill_median_s = median(gpukill->wall_s);
    verdict.ratio_paired = paired_median(idiom->wall_s, gpukill->wall_s);
    verdict.ratio_of_medians = median(idiom->wall_s) / verdict.gpukill_median_s;
    verdict.fast_enough = verdict.gpukill_median_s <= kLatencyTargetS;
    verdict.ratio_met = verdict.ratio_paired >= kIdiomRatioTarget;
    return verdict;
}

double max_of(const std::vector<double>& values) {
    return values.empty() ? NAN : *std::max_element(values.begin(), values.end());
}

bool batch_met(const BatchResult& result) {
    return !result.run.wall_s.empty() && max_of(result.run.wall_s) <= kBatchTargetS;
}

const char* yes_no(bool met) {
    return met ? "yes" : "**no**";
}

std::string ms(double seconds) {
    return std::isnan(seconds) ? "—" : fmt::format("{:.1f}", seconds * 1e3);
}

void print_latency(std::ostream& out, const LatencyResult& result) {
    out << fmt::format("Target: {}.\n\n", result.description);
    out << "| command | median wall ms | p90 wall ms | median CPU ms | median spawn → target exit "
           "ms |\n|---|---:|---:|---:|---:|\n";
    for (const Series& s : result.tools) {
        out << fmt::format("| {} | {} | {} | {} | {} |\n", s.label, ms(median(s.wall_s)),
                           ms(percentile(s.wall_s, 90)), ms(median(s.cpu_s)),
                           ms(median(s.target_exit_s)));
    }
    const LatencyVerdict v = judge(result);
    out << "\n| check | measured | target | met |\n|---|---:|---:|---|\n";
    out << fmt::format("| `gpukill kill --pid P`, median wall | {} ms | ≤ {:.0f} ms | {} |\n",
                       ms(v.gpukill_median_s), kLatencyTargetS * 1e3, yes_no(v.fast_enough));
    out << fmt::format(
        "| idiom / `gpukill kill` (median of per-round ratios; ratio of medians) "
        "| {:.2f}× ({:.2f}×) | ≥ {:.0f}× | {} |\n\n",
        v.ratio_paired, v.ratio_of_medians, kIdiomRatioTarget, yes_no(v.ratio_met));
}

void print_batch(std::ostream& out, const std::vector<BatchResult>& batch) {
    out << "| targets | runs | median wall s | max wall s | median CPU s | median spawn → last "
           "target exit s | target | met |\n|---|---:|---:|---:|---:|---:|---:|---|\n";
    for (const BatchResult& b : batch) {
        out << fmt::format(
            "| {} ({}) | {} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | ≤ {:.1f} s | {} |\n", b.variant,
            b.targets, b.run.wall_s.size(), median(b.run.wall_s), max_of(b.run.wall_s),
            median(b.run.cpu_s), median(b.run.target_exit_s), kBatchTargetS, yes_no(batch_met(b)));
    }
    out << "\n";
}

nlohmann::json series_json(const Series& s) {
    return {{"id", s.id},
            {"command", s.command},
            {"wall_seconds", s.wall_s},
            {"cpu_seconds", s.cpu_s},
            {"target_exit_seconds", s.target_exit_s},
            {"median_wall_seconds", median(s.wall_s)},
            {"p90_wall_seconds", percentile(s.wall_s, 90)}};
}

}  // namespace

void print_kill_markdown(std::ostream& out, const KillBenchInfo& info,
                         const std::vector<LatencyResult>& latency,
                         const std::vector<BatchResult>& batch) {
    out << fmt::format(
        "Machine: {} CPUs, Linux {}, {}; load average before: {}, after: {}; {} processes on "
        "the host; gpukill's audit log on {}.\n\n",
        info.machine.cpus, info.machine.kernel, info.machine.date_utc, info.load_before,
        info.load_after, info.host_processes, info.state_dir_fs);
    if (!latency.empty()) {
        out << fmt::format(
            "Latency: {} rounds after {} warm-up, commands interleaved round-robin, a fresh "
            "target for each kill; every target ended by SIGTERM and was reaped.\n\n",
            info.rounds, info.warmup);
    }
    for (const LatencyResult& result : latency) {
        out << fmt::format("Latency, {}:\n\n", result.variant);
        print_latency(out, result);
    }
    if (!batch.empty()) {
        const BatchResult& first = batch.front();
        out << fmt::format(
            "Batch: `{}`, {} of the {} targets ignoring SIGTERM; fresh targets each run; every "
            "SIGTERM target ended by SIGTERM, every other by SIGKILL, all reaped.\n\n",
            first.run.command, first.ignoring, first.targets);
        print_batch(out, batch);
    }
}

nlohmann::json kill_to_json(const KillBenchInfo& info, const std::vector<LatencyResult>& latency,
                            const std::vector<BatchResult>& batch) {
    nlohmann::json doc = {{"date_utc", info.machine.date_utc},
                          {"kernel", info.machine.kernel},
                          {"cpus", info.machine.cpus},
                          {"load_before", info.load_before},
                          {"load_after", info.load_after},
                          {"host_processes", info.host_processes},
                          {"audit_log_filesystem", info.state_dir_fs},
                          {"rounds", info.rounds},
                          {"warmup_rounds", info.warmup}};
    doc["latency"] = nlohmann::json::array();
    for (const LatencyResult& result : latency) {
        const LatencyVerdict v = judge(result);
        nlohmann::json entry = {{"variant", result.variant},
                                {"gpukill_median_wall_seconds", v.gpukill_median_s},
                                {"idiom_ratio_paired_median", v.ratio_paired},
                                {"idiom_ratio_of_medians", v.ratio_of_medians},
                                {"latency_target_met", v.fast_enough},
                                {"ratio_target_met", v.ratio_met}};
        for (const Series& s : result.tools) entry["commands"].push_back(series_json(s));
        doc["latency"].push_back(entry);
    }
    doc["batch"] = nlohmann::json::array();
    for (const BatchResult& b : batch) {
        nlohmann::json entry = series_json(b.run);
        entry["variant"] = b.variant;
        entry["targets"] = b.targets;
        entry["ignoring_sigterm"] = b.ignoring;
        entry["max_wall_seconds"] = max_of(b.run.wall_s);
        entry["target_met"] = batch_met(b);
        doc["batch"].push_back(entry);
    }
    return doc;
}

bool kill_targets_met(const std::vector<LatencyResult>& latency,
                      const std::vector<BatchResult>& batch) {
    const bool latency_ok = std::all_of(latency.begin(), latency.end(), [](const LatencyResult& r) {
        const LatencyVerdict v = judge(r);
        return v.fast_enough && v.ratio_met;
    });
    return latency_ok && std::all_of(batch.begin(), batch.end(), batch_met);
}

}  // namespace gpukill::bench

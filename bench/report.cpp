#include "report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "timing.hpp"

namespace gpukill::bench {
namespace {

enum class Target { none, at_most, above };

// One comparison. Only like with like: in-process against in-process, subprocess
// against subprocess, since process start-up alone differs by milliseconds.
struct RatioSpec {
    const char* numerator;
    const char* denominator;
    const char* label;
    Target target;
    double bound;
};

constexpr RatioSpec kRatios[] = {
    {"sweep", "floor_in_process", "gpukill sweep / floor (in-process)", Target::at_most, 1.25},
    {"gpukill_list", "floor", "`gpukill list --json` / floor (subprocess)", Target::none, 0},
    {"fuser", "gpukill_list", "`fuser -v` / `gpukill list --json` (subprocess)", Target::above,
     1.0},
    {"fuser", "floor", "`fuser -v` / floor (subprocess)", Target::none, 0},
};

struct Ratio {
    const RatioSpec* spec;
    double paired_wall;  // median over rounds of this round's numerator / denominator
    double of_medians_wall;
    double paired_cpu;
    std::optional<bool> met;
};

const ToolTimes* find(const std::vector<ToolTimes>& times, const char* id) {
    const auto it = std::find_if(times.begin(), times.end(),
                                 [&](const ToolTimes& t) { return t.tool->id == id; });
    return it == times.end() ? nullptr : &*it;
}

std::vector<Ratio> ratios(const std::vector<ToolTimes>& times) {
    std::vector<Ratio> result;
    for (const RatioSpec& spec : kRatios) {
        const ToolTimes* a = find(times, spec.numerator);
        const ToolTimes* b = find(times, spec.denominator);
        if (a == nullptr || b == nullptr) continue;
        Ratio ratio{&spec, paired_median(a->wall_s, b->wall_s),
                    median(a->wall_s) / median(b->wall_s), paired_median(a->cpu_s, b->cpu_s),
                    std::nullopt};
        if (spec.target == Target::at_most) ratio.met = ratio.paired_wall <= spec.bound;
        if (spec.target == Target::above) ratio.met = ratio.paired_wall > spec.bound;
        result.push_back(ratio);
    }
    return result;
}

std::string target_text(const RatioSpec& spec) {
    switch (spec.target) {
        case Target::at_most:
            return fmt::format("≤ {:.2f}×", spec.bound);
        case Target::above:
            return fmt::format("> {:.2f}×", spec.bound);
        case Target::none:
            break;
    }
    return "—";
}

void print_tool_table(std::ostream& out, const std::vector<ToolTimes>& times, ToolKind kind) {
    out << "| tool | median wall ms | p90 wall ms | median CPU ms |\n";
    out << "|---|---:|---:|---:|\n";
    for (const ToolTimes& t : times) {
        if (t.tool->kind != kind) continue;
        out << fmt::format("| {} | {:.1f} | {:.1f} | {:.1f} |\n", t.tool->label,
                           median(t.wall_s) * 1e3, percentile(t.wall_s, 90) * 1e3,
                           median(t.cpu_s) * 1e3);
    }
}

}  // namespace

void print_markdown(std::ostream& out, const RunInfo& info, const std::vector<ToolTimes>& times) {
    out << fmt::format(
        "Population: {} processes (~{} fd links on the host, {} processes in all), {} of them "
        "holding fake NVIDIA device files. {} rounds after {} warm-up, tools interleaved "
        "round-robin; every tool found the same {} holder PIDs in every round.\n\n",
        info.processes, info.fd_links, info.host_processes, info.holders, info.rounds, info.warmup,
        info.holders);
    out << fmt::format("Machine: {} CPUs, Linux {}, {}; load average before: {}, after: {}.\n\n",
                       info.cpus, info.kernel, info.date_utc, info.load_before, info.load_after);

    out << "In-process (one call, no process start-up):\n\n";
    print_tool_table(out, times, ToolKind::in_process);
    out << "\nSubprocess (spawn to exit: exec, dynamic loading and start-up included):\n\n";
    print_tool_table(out, times, ToolKind::subprocess);

    out << "\nRatios (median of per-round ratios; ratio of the medians in brackets):\n\n";
    out << "| comparison | wall | CPU | target | met |\n|---|---:|---:|---:|---|\n";
    for (const Ratio& r : ratios(times)) {
        out << fmt::format("| {} | {:.2f}× ({:.2f}×) | {:.2f}× | {} | {} |\n", r.spec->label,
                           r.paired_wall, r.of_medians_wall, r.paired_cpu, target_text(*r.spec),
                           r.met ? (*r.met ? "yes" : "**no**") : "—");
    }
}

nlohmann::json to_json(const RunInfo& info, const std::vector<ToolTimes>& times) {
    nlohmann::json doc;
    doc["date_utc"] = info.date_utc;
    doc["kernel"] = info.kernel;
    doc["cpus"] = info.cpus;
    doc["load_before"] = info.load_before;
    doc["load_after"] = info.load_after;
    doc["processes"] = info.processes;
    doc["holders"] = info.holders;
    doc["fd_links"] = info.fd_links;
    doc["rounds"] = info.rounds;
    doc["warmup_rounds"] = info.warmup;
    for (const ToolTimes& t : times) {
        doc["tools"].push_back(
            {{"id", t.tool->id},
             {"command", t.tool->command},
             {"kind", t.tool->kind == ToolKind::in_process ? "in_process" : "subprocess"},
             {"wall_seconds", t.wall_s},
             {"cpu_seconds", t.cpu_s},
             {"median_wall_seconds", median(t.wall_s)},
             {"p90_wall_seconds", percentile(t.wall_s, 90)}});
    }
    for (const Ratio& r : ratios(times)) {
        nlohmann::json row = {
            {"numerator", r.spec->numerator},      {"denominator", r.spec->denominator},
            {"paired_median_wall", r.paired_wall}, {"ratio_of_median_wall", r.of_medians_wall},
            {"paired_median_cpu", r.paired_cpu},   {"met", nullptr}};
        if (r.met) row["met"] = *r.met;
        doc["ratios"].push_back(row);
    }
    return doc;
}

bool targets_met(const std::vector<ToolTimes>& times) {
    const auto all = ratios(times);
    return std::all_of(all.begin(), all.end(), [](const Ratio& r) { return r.met.value_or(true); });
}

}  // namespace gpukill::bench

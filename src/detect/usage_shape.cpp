#include "detect/usage_shape.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace gpukill::detect {
namespace {

std::optional<unsigned> attributable_utilization(const history::ProcessSample& sample) {
    if (sample.process_utilization_percent) return sample.process_utilization_percent;
    if (sample.gpu_utilization_percent && sample.gpu_process_count == 1) {
        return sample.gpu_utilization_percent;
    }
    return std::nullopt;
}

struct Stretch {
    unsigned gpu = 0;
    std::vector<const history::ProcessSample*> samples;
    double minutes() const {
        if (samples.size() < 2) return 0;
        return static_cast<double>(samples.back()->time_unix_ms - samples.front()->time_unix_ms) /
               60000.0;
    }
};

// The longest busy stretch of one GPU's samples (in time order).
Stretch longest_busy_stretch(unsigned gpu,
                             const std::vector<const history::ProcessSample*>& samples,
                             const UsageShapeConfig& shape) {
    Stretch best{gpu, {}};
    Stretch current{gpu, {}};
    const auto max_gap_ms = static_cast<std::int64_t>(shape.max_sample_gap_seconds * 1000);
    for (const history::ProcessSample* sample : samples) {
        const auto util = attributable_utilization(*sample);
        const bool busy = util && *util >= shape.min_utilization_percent;
        if (!busy) {
            current.samples.clear();
            continue;
        }
        if (!current.samples.empty() &&
            sample->time_unix_ms - current.samples.back()->time_unix_ms > max_gap_ms) {
            current.samples.clear();
        }
        current.samples.push_back(sample);
        if (current.minutes() > best.minutes() ||
            (best.samples.empty() && !current.samples.empty())) {
            best = current;
        }
    }
    return best;
}

struct MemoryStats {
    std::size_t known = 0;
    double mean = 0;
    double max = 0;
    double variation = 0;  // stddev / mean; 0 for a constant series
};

MemoryStats memory_stats(const std::vector<const history::ProcessSample*>& samples) {
    MemoryStats stats;
    double sum = 0;
    for (const history::ProcessSample* sample : samples) {
        if (!sample->memory_bytes) continue;
        const auto bytes = static_cast<double>(*sample->memory_bytes);
        ++stats.known;
        sum += bytes;
        stats.max = std::max(stats.max, bytes);
    }
    if (stats.known == 0) return stats;
    stats.mean = sum / static_cast<double>(stats.known);
    double squares = 0;
    for (const history::ProcessSample* sample : samples) {
        if (!sample->memory_bytes) continue;
        const double delta = static_cast<double>(*sample->memory_bytes) - stats.mean;
        squares += delta * delta;
    }
    const double stddev = std::sqrt(squares / static_cast<double>(stats.known));
    stats.variation = stats.mean > 0 ? stddev / stats.mean : 0;
    return stats;
}

std::string mib(double bytes) {
    return fmt::format("{:.0f} MiB", bytes / (1024.0 * 1024.0));
}

}  // namespace

ShapeVerdict judge_usage_shape(const std::vector<history::ProcessSample>& samples,
                               const RogueConfig& config) {
    const UsageShapeConfig& shape = config.usage_shape;
    ShapeVerdict verdict;
    if (samples.empty()) {
        verdict.note = "no samples of this process in the usage history: shape not judged";
        return verdict;
    }
    std::map<unsigned, std::vector<const history::ProcessSample*>> by_gpu;
    std::int64_t first = samples.front().time_unix_ms;
    std::int64_t last = first;
    for (const history::ProcessSample& sample : samples) {
        by_gpu[sample.gpu_index].push_back(&sample);
        first = std::min(first, sample.time_unix_ms);
        last = std::max(last, sample.time_unix_ms);
    }
    const double span_minutes = static_cast<double>(last - first) / 60000.0;
    if (span_minutes < shape.min_minutes) {
        verdict.note = fmt::format(
            "{} sample{} over {:.1f} minute{} of history (needs {:g}): shape not judged",
            samples.size(), samples.size() == 1 ? "" : "s", span_minutes,
            span_minutes == 1.0 ? "" : "s", shape.min_minutes);
        return verdict;
    }
    verdict.judged = true;
    Stretch best;
    for (auto& [gpu, list] : by_gpu) {
        std::stable_sort(list.begin(), list.end(), [](const auto* a, const auto* b) {
            return a->time_unix_ms < b->time_unix_ms;
        });
        Stretch stretch = longest_busy_stretch(gpu, list, shape);
        if (stretch.minutes() > best.minutes()) best = std::move(stretch);
    }
    if (best.minutes() < shape.min_minutes) {
        verdict.note = fmt::format(
            "not mining-like: never at >= {}% utilisation for {:g} minutes in {:.0f} minutes "
            "of history",
            shape.min_utilization_percent, shape.min_minutes, span_minutes);
        return verdict;
    }
    verdict.busy_minutes = best.minutes();
    const MemoryStats memory = memory_stats(best.samples);
    // Whole minutes read best; short stretches (a test's shrunk thresholds) need a decimal.
    const std::string minutes = best.minutes() < 10 ? fmt::format("{:.1f}", best.minutes())
                                                    : fmt::format("{:.0f}", best.minutes());
    const std::string busy = fmt::format(
        "GPU {} at >= {}% for {} minutes ({} samples, in {:.1f} minutes of history)", best.gpu,
        shape.min_utilization_percent, minutes, best.samples.size(), span_minutes);
    if (memory.known * 2 < best.samples.size()) {
        verdict.judged = false;
        verdict.note = fmt::format("{}, but its memory is mostly unknown: shape not judged", busy);
        return verdict;
    }
    const bool small = memory.max <= static_cast<double>(shape.max_memory_bytes);
    const bool flat = memory.variation <= shape.max_memory_variation;
    if (small && flat) {
        verdict.evidence =
            make_evidence(config, Signal::mining_usage_shape,
                          fmt::format("mining-like usage: {} with small, flat memory (at most {}, "
                                      "variation {:.3f})",
                                      busy, mib(memory.max), memory.variation));
        verdict.note = "usage shape: mining-like";
        return verdict;
    }
    verdict.note = fmt::format(
        "not mining-like: {} but with {} memory (up to {}, variation {:.3f}), as training does",
        busy, small ? "varying" : "large", mib(memory.max), memory.variation);
    return verdict;
}

}  // namespace gpukill::detect

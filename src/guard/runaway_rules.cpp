// Runaway processes: stuck (busy with memory not going down), idle while holding
// memory, orphaned and matching a pattern, or scored as rogue.
#include <fmt/format.h>

#include "guard/rules.hpp"
#include "model/pattern.hpp"
#include "model/quoted_text.hpp"

namespace gpukill::guard::rules {
namespace {

// Drivers account memory in pages and jitter by a little; "not decreasing" allows it.
constexpr std::uint64_t kMemoryToleranceBytes = 1ULL << 20;

// How long `holds` has held without a break up to the newest point, or empty when it
// does not hold at the newest. `holds(point, later)` judges a point; later is the
// point after it (nullptr for the newest).
std::optional<std::chrono::milliseconds> streak(
    std::span<const UsagePoint> points, std::int64_t max_gap_ms,
    const std::function<bool(const UsagePoint&, const UsagePoint*)>& holds) {
    if (points.empty() || !holds(points.back(), nullptr)) return std::nullopt;
    std::size_t first = points.size() - 1;
    while (first > 0) {
        const UsagePoint& earlier = points[first - 1];
        const UsagePoint& later = points[first];
        if (later.time_unix_ms - earlier.time_unix_ms > max_gap_ms) break;
        if (!holds(earlier, &later)) break;
        --first;
    }
    return std::chrono::milliseconds(points.back().time_unix_ms - points[first].time_unix_ms);
}

// The history of one process on one GPU with the snapshot's own point as the newest.
std::vector<UsagePoint> series(const Context& context, const ProcessGpuKey& key,
                               const UsagePoint& current) {
    std::vector<UsagePoint> points;
    for (const UsagePoint& point : context.input.history.points(key)) {
        if (point.time_unix_ms < current.time_unix_ms) points.push_back(point);
    }
    points.push_back(current);
    return points;
}

std::string seconds_text(std::chrono::milliseconds duration) {
    return describe_duration(std::chrono::duration_cast<std::chrono::seconds>(duration));
}

void check_sustained(const Context& context, const RunawayRule& rule,
                     const std::map<ProcessGpuKey, UsagePoint>& current,
                     std::vector<Violation>& out) {
    const std::int64_t max_gap_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(max_sample_gap(context.input.policy))
            .count();
    const std::string id = "rules." + rule.name;
    for (std::size_t index = 0; index < context.candidates.size(); ++index) {
        const ProcessInfo& info = context.candidates[index].info();
        for (const ProcessGpuUse& use : context.candidates[index].process->gpus) {
            const ProcessGpuKey key{info.pid, info.start_time_ticks, use.gpu_index};
            auto now = current.find(key);
            if (now == current.end()) continue;
            const std::vector<UsagePoint> points = series(context, key, now->second);
            std::optional<std::chrono::milliseconds> held;
            std::string why;
            if (rule.kind == RunawayKind::stuck) {
                held = streak(
                    points, max_gap_ms, [&](const UsagePoint& point, const UsagePoint* later) {
                        auto busy = utilization_at_least(point);
                        if (!busy || *busy <= rule.utilization_above_percent) return false;
                        if (!point.memory_bytes) return false;
                        return later == nullptr || !later->memory_bytes ||
                               *point.memory_bytes <= *later->memory_bytes + kMemoryToleranceBytes;
                    });
                if (held) {
                    why = fmt::format(
                        "GPU {} above {}% busy for {} with its memory not going "
                        "down (now {}); the rule allows {}",
                        use.gpu_index, rule.utilization_above_percent, seconds_text(*held),
                        describe_bytes(now->second.memory_bytes.value_or(0)),
                        describe_duration(rule.duration));
                }
            } else {
                held = streak(points, max_gap_ms, [&](const UsagePoint& point, const UsagePoint*) {
                    auto busy = utilization_at_most(point);
                    return busy && *busy <= rule.utilization_at_most_percent &&
                           point.memory_bytes && *point.memory_bytes > rule.memory_above_bytes;
                });
                if (held) {
                    why = fmt::format(
                        "holds {} of GPU {} at {}% or less busy for {}; the rule "
                        "allows {}",
                        describe_bytes(now->second.memory_bytes.value_or(0)), use.gpu_index,
                        rule.utilization_at_most_percent, seconds_text(*held),
                        describe_duration(rule.duration));
                }
            }
            if (held && *held >= rule.duration) {
                out.push_back(Violation{index, id, why, rule.enforcement});
            }
        }
    }
}

void check_orphaned(const Context& context, const RunawayRule& rule, std::vector<Violation>& out) {
    std::optional<Pattern> pattern;
    if (rule.pattern) {
        auto compiled = Pattern::compile(*rule.pattern);
        // The loader refused every pattern that does not compile; this is the same engine.
        if (!compiled) return;
        pattern = std::move(*compiled);
    }
    for (std::size_t index = 0; index < context.candidates.size(); ++index) {
        const SnapshotProcess& process = *context.candidates[index].process;
        if (!process.orphaned) continue;
        if (pattern && !search_process(*pattern, process.info)) continue;
        out.push_back(Violation{index, "rules." + rule.name,
                                rule.pattern
                                    ? fmt::format("orphaned (its parent died) and matches {}",
                                                  quote_escaped(*rule.pattern))
                                    : std::string("orphaned (its parent died)"),
                                rule.enforcement});
    }
}

void check_rogue(const Context& context, const RunawayRule& rule, std::vector<Violation>& out) {
    for (std::size_t index = 0; index < context.candidates.size(); ++index) {
        const ProcessInfo& info = context.candidates[index].info();
        auto score = context.input.rogue_scores.find({info.pid, info.start_time_ticks});
        if (score == context.input.rogue_scores.end()) continue;
        if (score->second.score <= rule.score_above) continue;
        out.push_back(
            Violation{index, "rules." + rule.name,
                      fmt::format("rogue-detection score {:.0f}, above {:.0f}{}{}",
                                  score->second.score, rule.score_above,
                                  score->second.summary.empty() ? "" : ": ", score->second.summary),
                      rule.enforcement});
    }
}

}  // namespace

void runaway_violations(const Context& context, std::vector<Violation>& out) {
    std::map<ProcessGpuKey, UsagePoint> current;
    for (const auto& [key, point] : snapshot_points(context.input.snapshot)) current[key] = point;
    for (const RunawayRule& rule : context.input.policy.rules) {
        switch (rule.kind) {
            case RunawayKind::stuck:
            case RunawayKind::idle:
                check_sustained(context, rule, current, out);
                break;
            case RunawayKind::orphaned:
                check_orphaned(context, rule, out);
                break;
            case RunawayKind::rogue:
                check_rogue(context, rule, out);
                break;
        }
    }
}

}  // namespace gpukill::guard::rules

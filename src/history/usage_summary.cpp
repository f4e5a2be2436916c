#include "history/usage_summary.hpp"

#include <time.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "model/parse_util.hpp"

namespace gpukill::history {
namespace {

constexpr double kMsPerHour = 3'600'000.0;

using Identity = std::pair<pid_t, std::uint64_t>;

double hours_at(const SampleWeights& weights, std::int64_t time_ms) {
    auto found = weights.hours.find(time_ms);
    return found == weights.hours.end() ? 0.0 : found->second;
}

// Running mean of values that may be unknown.
struct Mean {
    double sum = 0;
    std::size_t count = 0;
    void add(std::optional<double> value) {
        if (!value) return;
        sum += *value;
        ++count;
    }
    std::optional<double> value() const {
        if (count == 0) return std::nullopt;
        return sum / static_cast<double>(count);
    }
};

// Memory summed per instant (over GPUs or over a group's processes); unknown values add
// nothing, and an instant where none was known does not count.
struct MemoryByInstant {
    std::map<std::int64_t, std::uint64_t> total;
    void add(std::int64_t time_ms, const std::optional<std::uint64_t>& bytes) {
        if (bytes) total[time_ms] += *bytes;
    }
    std::optional<std::uint64_t> peak() const {
        std::optional<std::uint64_t> peak;
        for (const auto& [time, bytes] : total) peak = std::max(peak.value_or(0), bytes);
        return peak;
    }
    std::optional<std::uint64_t> average() const {
        if (total.empty()) return std::nullopt;
        long double sum = 0;
        for (const auto& [time, bytes] : total) sum += static_cast<long double>(bytes);
        return static_cast<std::uint64_t>(sum / static_cast<long double>(total.size()));
    }
};

std::optional<double> as_double(const std::optional<unsigned>& value) {
    if (!value) return std::nullopt;
    return static_cast<double>(*value);
}

struct ProcessAccumulator {
    ProcessUsage usage;
    std::set<unsigned> gpus;
    std::set<std::int64_t> instants;
    MemoryByInstant memory;
    Mean gpu_utilization;
    Mean process_utilization;
};

struct GroupAccumulator {
    GroupUsage usage;
    std::set<Identity> identities;
    std::set<std::string> users;
    MemoryByInstant memory;
};

void add_to_group(GroupAccumulator& group, const ProcessSample& sample, double hours) {
    group.usage.gpu_hours += hours;
    group.identities.insert({sample.pid, sample.start_time_ticks});
    group.users.insert(sample.user);
    group.memory.add(sample.time_unix_ms, sample.memory_bytes);
    if (sample.uid) group.usage.uid = sample.uid;
}

std::vector<GroupUsage> finish_groups(std::map<std::string, GroupAccumulator>& groups,
                                      bool list_users) {
    std::vector<GroupUsage> out;
    for (auto& [key, group] : groups) {
        GroupUsage usage = std::move(group.usage);
        usage.key = key;
        usage.processes = group.identities.size();
        usage.peak_memory_bytes = group.memory.peak();
        if (list_users) usage.users.assign(group.users.begin(), group.users.end());
        out.push_back(std::move(usage));
    }
    std::stable_sort(out.begin(), out.end(), [](const GroupUsage& a, const GroupUsage& b) {
        return a.gpu_hours > b.gpu_hours;
    });
    return out;
}

struct GpuAccumulator {
    GpuUsage usage;
    Mean utilization;
    Mean memory;
};

}  // namespace

SampleWeights sample_weights(std::vector<std::int64_t> instants, std::int64_t until_unix_ms) {
    std::sort(instants.begin(), instants.end());
    instants.erase(std::unique(instants.begin(), instants.end()), instants.end());
    SampleWeights weights;
    weights.instants = instants.size();
    if (instants.size() < 2) {
        for (std::int64_t t : instants) weights.hours[t] = 0;
        return weights;
    }
    std::vector<std::int64_t> intervals;
    for (std::size_t i = 1; i < instants.size(); ++i) {
        intervals.push_back(instants[i] - instants[i - 1]);
    }
    std::sort(intervals.begin(), intervals.end());
    const std::size_t mid = intervals.size() / 2;
    const std::int64_t median =
        intervals.size() % 2 == 1 ? intervals[mid] : (intervals[mid - 1] + intervals[mid]) / 2;
    weights.typical_interval_ms = median;
    weights.cap_ms = std::min(2 * median, kMaxCreditMs);
    for (std::size_t i = 0; i < instants.size(); ++i) {
        const std::int64_t next = i + 1 < instants.size() ? instants[i + 1] : until_unix_ms;
        const std::int64_t credited =
            std::clamp<std::int64_t>(next - instants[i], 0, weights.cap_ms);
        weights.hours[instants[i]] = static_cast<double>(credited) / kMsPerHour;
    }
    return weights;
}

std::vector<std::int64_t> sample_instants(const std::vector<GpuSample>& gpus,
                                          const std::vector<ProcessSample>& processes) {
    std::set<std::int64_t> times;
    for (const GpuSample& sample : gpus) times.insert(sample.time_unix_ms);
    for (const ProcessSample& sample : processes) times.insert(sample.time_unix_ms);
    return {times.begin(), times.end()};
}

std::vector<ProcessUsage> summarize_processes(const std::vector<ProcessSample>& samples,
                                              const SampleWeights& weights) {
    std::map<Identity, ProcessAccumulator> by_identity;
    for (const ProcessSample& sample : samples) {
        auto [it, inserted] =
            by_identity.try_emplace(Identity{sample.pid, sample.start_time_ticks});
        ProcessAccumulator& acc = it->second;
        ProcessUsage& usage = acc.usage;
        if (inserted) {
            usage.pid = sample.pid;
            usage.start_time_ticks = sample.start_time_ticks;
            usage.first_seen_unix_ms = sample.time_unix_ms;
            usage.last_seen_unix_ms = sample.time_unix_ms;
        }
        usage.first_seen_unix_ms = std::min(usage.first_seen_unix_ms, sample.time_unix_ms);
        if (inserted || sample.time_unix_ms >= usage.last_seen_unix_ms) {
            usage.last_seen_unix_ms = sample.time_unix_ms;
            usage.user = sample.user;
            usage.name = sample.name;
            usage.command = sample.command;
            if (sample.uid) usage.uid = sample.uid;
            if (sample.container) usage.container = sample.container;
            if (sample.start_time_unix_ms) usage.start_time_unix_ms = sample.start_time_unix_ms;
        }
        acc.gpus.insert(sample.gpu_index);
        acc.instants.insert(sample.time_unix_ms);
        acc.memory.add(sample.time_unix_ms, sample.memory_bytes);
        acc.gpu_utilization.add(as_double(sample.gpu_utilization_percent));
        acc.process_utilization.add(as_double(sample.process_utilization_percent));
        usage.gpu_hours += hours_at(weights, sample.time_unix_ms);
        usage.orphaned = usage.orphaned || sample.orphaned;
    }
    std::vector<ProcessUsage> out;
    for (auto& [identity, acc] : by_identity) {
        ProcessUsage usage = std::move(acc.usage);
        usage.gpus.assign(acc.gpus.begin(), acc.gpus.end());
        usage.samples = acc.instants.size();
        usage.peak_memory_bytes = acc.memory.peak();
        usage.average_memory_bytes = acc.memory.average();
        usage.average_gpu_utilization_percent = acc.gpu_utilization.value();
        usage.average_process_utilization_percent = acc.process_utilization.value();
        out.push_back(std::move(usage));
    }
    std::sort(out.begin(), out.end(), [](const ProcessUsage& a, const ProcessUsage& b) {
        return std::tie(a.first_seen_unix_ms, a.pid, a.start_time_ticks) <
               std::tie(b.first_seen_unix_ms, b.pid, b.start_time_ticks);
    });
    return out;
}

int local_hour_of_day(std::int64_t unix_ms) {
    const time_t seconds = static_cast<time_t>(unix_ms / 1000);
    struct tm local {};
    if (localtime_r(&seconds, &local) == nullptr) return 0;
    return local.tm_hour;
}

UsageSummary summarize_usage(const std::vector<GpuSample>& gpus,
                             const std::vector<ProcessSample>& processes,
                             const SampleWeights& weights, const HourOfDay& hour_of_day) {
    UsageSummary summary;
    summary.by_hour.resize(24);
    std::vector<Mean> hour_utilization(24);
    for (int hour = 0; hour < 24; ++hour)
        summary.by_hour[static_cast<std::size_t>(hour)].hour = hour;
    auto bucket = [&](std::int64_t time_ms) {
        return static_cast<std::size_t>(std::clamp(hour_of_day(time_ms), 0, 23));
    };

    std::map<std::string, GroupAccumulator> users;
    std::map<std::string, GroupAccumulator> names;
    for (const ProcessSample& sample : processes) {
        const double hours = hours_at(weights, sample.time_unix_ms);
        add_to_group(users[sample.user], sample, hours);
        add_to_group(names[sample.name], sample, hours);
        summary.by_hour[bucket(sample.time_unix_ms)].gpu_hours += hours;
        summary.total_gpu_hours += hours;
    }
    summary.users = finish_groups(users, false);
    summary.processes = finish_groups(names, true);
    // A process name's uid is meaningless when several users ran it.
    for (GroupUsage& group : summary.processes) {
        if (group.users.size() != 1) group.uid.reset();
    }

    std::map<unsigned, GpuAccumulator> by_gpu;
    for (const GpuSample& sample : gpus) {
        GpuAccumulator& acc = by_gpu[sample.gpu_index];
        GpuUsage& usage = acc.usage;
        usage.index = sample.gpu_index;
        if (sample.gpu_uuid) usage.uuid = sample.gpu_uuid;
        if (sample.gpu_name) usage.name = sample.gpu_name;
        if (sample.memory_total_bytes) usage.memory_total_bytes = sample.memory_total_bytes;
        ++usage.samples;
        acc.utilization.add(as_double(sample.utilization_percent));
        if (sample.utilization_percent) {
            usage.peak_utilization_percent =
                std::max(usage.peak_utilization_percent.value_or(0), *sample.utilization_percent);
        }
        if (sample.memory_used_bytes) {
            acc.memory.add(static_cast<double>(*sample.memory_used_bytes));
            usage.peak_memory_used_bytes =
                std::max(usage.peak_memory_used_bytes.value_or(0), *sample.memory_used_bytes);
        }
        if (sample.process_count > 0)
            usage.gpu_hours_in_use += hours_at(weights, sample.time_unix_ms);
        HourUsage& hour = summary.by_hour[bucket(sample.time_unix_ms)];
        ++hour.samples;
        hour_utilization[bucket(sample.time_unix_ms)].add(as_double(sample.utilization_percent));
    }
    for (auto& [index, acc] : by_gpu) {
        acc.usage.average_utilization_percent = acc.utilization.value();
        if (auto memory = acc.memory.value()) {
            acc.usage.average_memory_used_bytes = static_cast<std::uint64_t>(*memory);
        }
        summary.gpus.push_back(std::move(acc.usage));
    }
    std::stable_sort(summary.gpus.begin(), summary.gpus.end(),
                     [](const GpuUsage& a, const GpuUsage& b) {
                         // Unknown utilisation sorts last.
                         return a.average_utilization_percent.value_or(-1) >
                                b.average_utilization_percent.value_or(-1);
                     });
    for (std::size_t hour = 0; hour < 24; ++hour) {
        summary.by_hour[hour].average_utilization_percent = hour_utilization[hour].value();
    }
    return summary;
}

bool sample_matches_user(const ProcessSample& sample, const std::string& wanted) {
    if (sample.user == wanted) return true;
    const auto uid = text::parse_int<uid_t>(wanted);
    return uid && sample.uid && *sample.uid == *uid;
}

Result<Pattern> compile_process_pattern(const std::string& pattern) {
    auto compiled = Pattern::compile(pattern);
    if (!compiled) return fail("invalid --audit-process: " + compiled.error().what);
    return compiled;
}

std::vector<ProcessSample> filter_samples(std::vector<ProcessSample> samples,
                                          const std::optional<std::string>& user,
                                          const std::optional<Pattern>& process) {
    std::map<std::pair<std::string, std::string>, bool> verdicts;
    std::vector<ProcessSample> kept;
    for (ProcessSample& sample : samples) {
        if (user && !sample_matches_user(sample, *user)) continue;
        if (process) {
            auto key = std::make_pair(sample.name, sample.command);
            auto found = verdicts.find(key);
            if (found == verdicts.end()) {
                const bool matched =
                    process->search(sample.name) || process->search(sample.command);
                found = verdicts.emplace(std::move(key), matched).first;
            }
            if (!found->second) continue;
        }
        kept.push_back(std::move(sample));
    }
    return kept;
}

}  // namespace gpukill::history

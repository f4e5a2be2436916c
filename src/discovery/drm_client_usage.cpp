#include "discovery/drm_client_usage.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace gpukill {
namespace {

// A counter lower than before stays at its previous value until it catches up
// (drm-usage-stats.rst): the driver may report a slightly stale value now and then.
std::optional<std::uint64_t> monotonic(std::optional<std::uint64_t> before,
                                       std::optional<std::uint64_t> now) {
    if (!now) return std::nullopt;
    if (!before) return now;
    return std::max(*before, *now);
}

using EngineShares = std::map<std::string, double>;  // busy fraction per engine

struct ProcessTotals {
    std::string driver;
    std::optional<std::uint64_t> memory;  // summed over identified clients
    EngineShares shares;                  // summed over identified clients
    // Fds of a driver without client ids: possibly one client seen several times.
    std::optional<std::uint64_t> anonymous_memory;  // max
    EngineShares anonymous_shares;                  // max per engine

    void add_client(std::optional<std::uint64_t> bytes, const EngineShares& client_shares) {
        if (bytes) memory = memory.value_or(0) + *bytes;
        for (const auto& [engine, share] : client_shares) shares[engine] += share;
    }
    void add_anonymous(std::optional<std::uint64_t> bytes, const EngineShares& client_shares) {
        if (bytes) anonymous_memory = std::max(anonymous_memory.value_or(0), *bytes);
        for (const auto& [engine, share] : client_shares) {
            anonymous_shares[engine] = std::max(anonymous_shares[engine], share);
        }
    }

    std::optional<std::uint64_t> total_memory() const {
        if (!memory && !anonymous_memory) return std::nullopt;
        return memory.value_or(0) + anonymous_memory.value_or(0);
    }
    std::optional<unsigned> utilization_percent() const {
        EngineShares combined = shares;
        for (const auto& [engine, share] : anonymous_shares) combined[engine] += share;
        if (combined.empty()) return std::nullopt;
        double busiest = 0;
        for (const auto& entry : combined) busiest = std::max(busiest, entry.second);
        return static_cast<unsigned>(std::lround(std::clamp(busiest, 0.0, 1.0) * 100.0));
    }
};

}  // namespace

std::vector<DrmProcessUsage> DrmUsageTracker::update(const std::vector<DrmClientSample>& samples) {
    std::map<ClientKey, ClientCounters> current;
    std::map<std::pair<pid_t, std::string>, ProcessTotals> totals;

    for (const DrmClientSample& sample : samples) {
        const DrmFdinfo& client = sample.client;
        const auto bus_id = client.pdev ? client.pdev : sample.node_pci_bus_id;
        if (!bus_id) continue;  // cannot be tied to a GPU
        ClientKey key{sample.pid, *bus_id, client.client_id, client.client_id ? -1 : sample.fd};
        if (current.contains(key)) continue;  // another fd of a client already counted

        const auto found = previous_.find(key);
        const ClientCounters* before = found == previous_.end() ? nullptr : &found->second;
        const std::int64_t wall_ns = before ? sample.monotonic_ns - before->monotonic_ns : 0;
        ClientCounters now{.monotonic_ns = sample.monotonic_ns};
        EngineShares shares;
        for (const DrmEngineCounters& engine : client.engines) {
            if (engine.busy_percent) {  // old amdgpu: the driver did the arithmetic
                shares[engine.name] = *engine.busy_percent / 100.0;
                continue;
            }
            const EngineCounters* then = nullptr;
            if (before) {
                auto it = before->engines.find(engine.name);
                if (it != before->engines.end()) then = &it->second;
            }
            EngineCounters counters{
                .busy_ns = monotonic(then ? then->busy_ns : std::nullopt, engine.busy_ns),
                .cycles = monotonic(then ? then->cycles : std::nullopt, engine.cycles),
                .total_cycles =
                    monotonic(then ? then->total_cycles : std::nullopt, engine.total_cycles),
            };
            const double capacity =
                static_cast<double>(std::max<std::uint64_t>(engine.capacity, 1));
            if (then && counters.cycles && counters.total_cycles && then->cycles &&
                then->total_cycles) {
                // xe: busy cycles against the GPU's own clock, free of our sampling jitter.
                const std::uint64_t clock = *counters.total_cycles - *then->total_cycles;
                if (clock > 0) {
                    shares[engine.name] = static_cast<double>(*counters.cycles - *then->cycles) /
                                          (static_cast<double>(clock) * capacity);
                }
            } else if (then && counters.busy_ns && then->busy_ns && wall_ns > 0) {
                shares[engine.name] = static_cast<double>(*counters.busy_ns - *then->busy_ns) /
                                      (static_cast<double>(wall_ns) * capacity);
            }
            now.engines[engine.name] = counters;
        }
        current.emplace(std::move(key), std::move(now));

        ProcessTotals& process = totals[{sample.pid, *bus_id}];
        if (process.driver.empty()) process.driver = client.driver;
        const auto bytes = client_gpu_memory_bytes(client);
        if (client.client_id) {
            process.add_client(bytes, shares);
        } else {
            process.add_anonymous(bytes, shares);
        }
    }
    previous_ = std::move(current);

    std::vector<DrmProcessUsage> usage;
    for (const auto& [where, process] : totals) {
        usage.push_back(DrmProcessUsage{.pid = where.first,
                                        .pci_bus_id = where.second,
                                        .driver = process.driver,
                                        .memory_bytes = process.total_memory(),
                                        .utilization_percent = process.utilization_percent()});
    }
    return usage;
}

}  // namespace gpukill

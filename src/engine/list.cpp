#include "engine/list.hpp"

#include <algorithm>

#include <fcntl.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "discovery/gpu_selector.hpp"
#include "engine/engine_state.hpp"
#include "engine/local_channel.hpp"
#include "engine/plan_selectors.hpp"
#include "host/capabilities.hpp"
#include "model/snapshot_json.hpp"
#include "reclaim/match.hpp"
#include "sys/fd_io.hpp"

namespace gpukill::engine {

Result<unsigned> resolve_gpu(const Snapshot& snapshot, std::string_view selector) {
    auto index = resolve_gpu_selector(selector, snapshot.gpus);
    if (!index) return std::unexpected(as(ErrorCategory::not_found, index.error()));
    return *index;
}

Result<Snapshot> narrow(const Snapshot& snapshot, const ListRequest& request) {
    auto vendor = parse_vendor_filter(request.vendor);
    if (!vendor) return std::unexpected(as(ErrorCategory::invalid_input, vendor.error()));
    Snapshot narrowed = *vendor ? restrict_to_vendor(snapshot, **vendor) : snapshot;
    reclaim::Selectors selectors = plan_selectors(static_cast<const MatchSelectors&>(request));
    if (request.gpu) {
        // Among the vendor's GPUs, numbered as on the whole host.
        auto index = resolve_gpu(narrowed, *request.gpu);
        if (!index) return std::unexpected(index.error());
        narrowed = restrict_to_gpus(narrowed, {*index});
        selectors.gpu = *index;
    }
    if (!request.selects_processes()) return narrowed;
    auto matcher = reclaim::compile_matcher(selectors, narrowed);
    if (!matcher) return std::unexpected(as(ErrorCategory::invalid_input, matcher.error()));
    std::erase_if(narrowed.processes, [&](const SnapshotProcess& process) {
        return !reclaim::matches(*matcher, process.info, &process);
    });
    return narrowed;
}

Result<ListOutcome> list(Engine& engine, const ListRequest& request) {
    ListOutcome outcome = engine.snapshot(request.record_history);
    auto narrowed = narrow(outcome.snapshot, request);
    if (!narrowed) return std::unexpected(narrowed.error());
    outcome.snapshot = std::move(*narrowed);
    return outcome;
}

namespace {

// What decides whose open files and fdinfo a process may read, besides its uid (the
// agent answers only root or its own user, so the uids are the same): reading
// /proc/PID/fd needs ptrace's read access (CAP_SYS_PTRACE for others' processes), and
// root-only fdinfo and sysfs files a capability that bypasses read permission
// (CAP_DAC_READ_SEARCH, or CAP_DAC_OVERRIDE, which grants that and more).
constexpr unsigned kCapDacOverride = 1;
constexpr unsigned kCapDacReadSearch = 2;

struct ReadAccess {
    bool ptrace = false;    // CAP_SYS_PTRACE
    bool read_any = false;  // CAP_DAC_READ_SEARCH or CAP_DAC_OVERRIDE
};

Result<ReadAccess> read_access(const std::string& status_path) {
    auto status = read_file_at(AT_FDCWD, status_path.c_str());
    if (!status) return std::unexpected(status.error());
    auto caps = parse_capability_mask(*status, "CapEff");
    if (!caps) return std::unexpected(caps.error());
    const auto has = [&](unsigned bit) { return (*caps & (std::uint64_t{1} << bit)) != 0; };
    return ReadAccess{.ptrace = has(kCapSysPtrace),
                      .read_any = has(kCapDacReadSearch) || has(kCapDacOverride)};
}

// Why the agent may see fewer holders than a sweep by this process would (one line), by
// the kernel's word on both: read access this process has and the agent lacks (an agent
// confined more than root), or an agent whose status cannot be read (in another PID
// namespace its PID is 0). Empty when it sees at least as much.
std::optional<std::string> sees_less_than_this_process(pid_t agent) {
    auto own = read_access("/proc/self/status");
    if (!own) return "this process's capabilities are unknown: " + own.error().what;
    auto theirs = read_access(fmt::format("/proc/{}/status", agent));
    if (!theirs) return "the agent's capabilities are unknown: " + theirs.error().what;
    std::vector<std::string> missing;
    if (own->ptrace && !theirs->ptrace) missing.push_back(capability_name(kCapSysPtrace));
    if (own->read_any && !theirs->read_any) missing.push_back(capability_name(kCapDacReadSearch));
    if (missing.empty()) return std::nullopt;
    return fmt::format(
        "the agent (PID {}) lacks {}, which this process has: it may see fewer holders", agent,
        fmt::join(missing, " and "));
}

// The host as the agent reads it now, when it may answer this listing; else why not
// (empty when there is nothing worth saying: no agent, or one this user may not ask).
Result<AgentSnapshot> agent_snapshot(const EngineConfig& config, std::optional<std::string>& note) {
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(kAgentListSeconds));
    auto asked = ask_agent_snapshot(config.state_dir, config.roots, config.nvml_library, deadline);
    if (!asked) {
        // The channel is root's: an unprivileged listing sweeps as it always did. An agent
        // reading other roots (a simulated host, a fixture tree) or too old to answer
        // listings (not_found) is no failure either.
        const ErrorCategory category = asked.error().category;
        if (category != ErrorCategory::permission && category != ErrorCategory::conflict &&
            category != ErrorCategory::not_found) {
            note = asked.error().what;
        }
        return std::unexpected(asked.error());
    }
    if (!*asked) return fail(ErrorCategory::not_found, "no agent serves this host");
    if (auto less = sees_less_than_this_process((*asked)->agent_pid)) {
        note = *less;
        return fail(ErrorCategory::unavailable, *less);
    }
    return std::move(**asked);
}

}  // namespace

Result<ListOutcome> list_once(EngineConfig config, const ListRequest& request, AgentUse use) {
    std::optional<std::string> note;
    if (use == AgentUse::ask_first) {
        if (auto answered = agent_snapshot(config, note)) {
            auto narrowed = narrow(answered->snapshot, request);
            if (!narrowed) return std::unexpected(narrowed.error());
            return ListOutcome{.snapshot = std::move(*narrowed),
                               .history_warning = std::nullopt,
                               .source = ListSource::agent,
                               .agent_pid = answered->agent_pid,
                               .agent_note = std::nullopt};
        }
    }
    auto engine = Engine::open(std::move(config));
    if (!engine) return std::unexpected(engine.error());
    auto listed = list(**engine, request);
    if (listed) listed->agent_note = std::move(note);
    return listed;
}

nlohmann::ordered_json list_document(const ListOutcome& outcome) {
    nlohmann::ordered_json document = to_json(outcome.snapshot);
    document["source"] = to_string(outcome.source);
    return document;
}

Snapshot snapshot_for_local_list(Engine& engine) {
    return host_snapshot(engine, /*own_holds=*/true);
}

}  // namespace gpukill::engine

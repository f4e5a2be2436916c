#include "engine/process_details.hpp"

#include <unistd.h>

#include <algorithm>
#include <set>

#include "detect/config_file.hpp"
#include "engine/rogue_scoring.hpp"
#include "host/proc_reader.hpp"
#include "host/process_usage.hpp"

namespace gpukill::engine {
namespace {

constexpr std::size_t kMaxAncestors = 64;  // a chain longer than this is cut

Error details_gone(const ProcessIdentity& identity) {
    return Error{.what = "process " + std::to_string(identity.pid) + " is gone",
                 .errno_value = 0,
                 .category = ErrorCategory::not_found};
}

// The PID still names the process with this start time.
bool details_same_process(const Engine& engine, const ProcessIdentity& identity) {
    auto start = read_start_time(engine.config().roots, identity.pid);
    return start && *start == identity.start_time_ticks;
}

}  // namespace

std::vector<ProcessUsage> process_usage(const Engine& engine, const std::vector<pid_t>& pids) {
    static const long page_size = sysconf(_SC_PAGESIZE);
    std::vector<ProcessUsage> usage;
    usage.reserve(pids.size());
    for (pid_t pid : pids) {
        auto read = read_process_usage(engine.config().roots, pid);
        if (!read) continue;
        usage.push_back({.identity = {pid, read->start_time_ticks},
                         .cpu_ticks = read->cpu_ticks,
                         .rss_bytes = read->rss_pages * static_cast<std::uint64_t>(page_size)});
    }
    return usage;
}

Result<std::vector<std::string>> process_environment(const Engine& engine,
                                                     const ProcessIdentity& identity) {
    if (!details_same_process(engine, identity)) return std::unexpected(details_gone(identity));
    auto environment = read_process_environment(engine.config().roots, identity.pid);
    // Read, then checked again: a PID reused while reading is not shown as this one.
    if (!details_same_process(engine, identity)) return std::unexpected(details_gone(identity));
    if (!environment) return std::unexpected(environment.error());
    std::sort(environment->begin(), environment->end());
    return environment;
}

Result<ProcessDetails> process_details(const Engine& engine, const ProcessIdentity& identity,
                                       const Snapshot& snapshot) {
    const HostRoots& roots = engine.config().roots;
    auto info = read_process(roots, identity.pid);
    if (!info || info->start_time_ticks != identity.start_time_ticks) {
        return std::unexpected(details_gone(identity));
    }
    ProcessDetails details;
    details.info = std::move(*info);
    std::set<pid_t> seen{identity.pid};
    for (pid_t parent = details.info.ppid;
         parent > 0 && details.ancestors.size() < kMaxAncestors;) {
        if (!seen.insert(parent).second) break;
        auto ancestor = read_process(roots, parent);
        if (!ancestor) break;
        parent = ancestor->ppid;
        details.ancestors.push_back(std::move(*ancestor));
    }
    if (auto cgroup = read_process_cgroup(roots, identity.pid)) {
        details.cgroup = std::move(*cgroup);
    } else {
        details.cgroup_problem = cgroup.error().what;
    }

    const auto holder =
        std::find_if(snapshot.processes.begin(), snapshot.processes.end(),
                     [&](const SnapshotProcess& p) { return p.info.identity() == identity; });
    if (holder == snapshot.processes.end()) {
        details.rogue_note = "not judged: it holds no GPU in this snapshot";
    } else if (auto config = detect::load_rogue_config(engine.config().config_dir, std::nullopt);
               !config) {
        details.rogue_note = "not judged: " + config.error().what;
    } else {
        Snapshot one = snapshot;
        one.processes = {*holder};
        RogueScoring scored =
            score_rogues(engine.config(), std::move(one),
                         {.user = std::nullopt, .hours = 24, .command = "top"}, *config);
        for (const auto* list : {&scored.report.findings, &scored.report.allowed}) {
            for (const detect::Assessment& assessment : *list) {
                if (assessment.holder.info.identity() != identity) continue;
                RogueVerdict verdict{.score = assessment.score,
                                     .risk = std::string(detect::risk_name(assessment.risk)),
                                     .evidence = {},
                                     .allowed = assessment.allowed.has_value()};
                for (const detect::Evidence& piece : assessment.evidence) {
                    verdict.evidence.push_back(
                        RogueEvidence{.signal = std::string(detect::signal_name(piece.signal)),
                                      .weight = piece.weight,
                                      .detail = piece.detail});
                }
                details.rogue = std::move(verdict);
            }
        }
        if (!details.rogue) details.rogue_note = "no rogue evidence above the report threshold";
    }
    if (!details_same_process(engine, identity)) return std::unexpected(details_gone(identity));
    return details;
}

}  // namespace gpukill::engine

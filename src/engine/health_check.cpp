#include "engine/health_check.hpp"

#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iterator>

#include <algorithm>

#include "detect/config_file.hpp"
#include "engine/rogue_scoring.hpp"
#include "model/human_format.hpp"

namespace gpukill::engine {
namespace {

void add(CheckOutcome& outcome, std::string kind, std::optional<unsigned> gpu,
         std::optional<pid_t> pid, std::string detail) {
    outcome.problems.push_back(
        CheckFinding{.kind = std::move(kind), .gpu = gpu, .pid = pid, .detail = std::move(detail)});
}

// The most severe first: node-problem-detector shows the first line of the output, which
// names the first problem. A lost GPU needs a reboot; a miner is a security incident; a
// soft-locked GPU needs a reset; an orphan holds memory until it is ended; memory nobody
// accounts for may be either; an unexpected holder only breaks an idle node's promise.
int severity(const std::string& kind) {
    static constexpr const char* kOrder[] = {"lost_gpu",           "rogue_process",
                                             "soft_locked",        "orphaned_holder",
                                             "unaccounted_memory", "unexpected_holder"};
    for (std::size_t i = 0; i < std::size(kOrder); ++i) {
        if (kind == kOrder[i]) return static_cast<int>(i);
    }
    return static_cast<int>(std::size(kOrder));
}

// Whether every GPU user is in view: the host's PID namespace, and (without privilege)
// every process's open files readable. Soft-lock ("no process holds it") rests on that.
bool sees_every_holder(const Snapshot& snapshot) {
    return snapshot.host_pid_namespace.value_or(false) && !snapshot.process_scan_failed &&
           (snapshot.processes_denied == 0 || ::geteuid() == 0);
}

void judge_gpus(const Snapshot& snapshot, const CheckRequest& request, CheckOutcome& outcome) {
    const bool host_namespace = snapshot.host_pid_namespace.value_or(false);
    for (const Gpu& gpu : snapshot.gpus) {
        if (gpu.reading.lost) {
            add(outcome, "lost_gpu", gpu.index, std::nullopt,
                fmt::format("GPU {} has fallen off the bus", gpu.index));
            continue;
        }
        const std::uint64_t unaccounted = gpu.unattributed_memory_bytes.value_or(0);
        if (unaccounted <= request.unaccounted_memory_bytes) continue;
        if (!host_namespace) {
            // The driver lists only this namespace's processes: the rest may be anyone's.
            outcome.unknowns.push_back(
                fmt::format("GPU {}: {} used by processes this PID namespace cannot see", gpu.index,
                            format_bytes(unaccounted)));
            continue;
        }
        if (gpu.process_count == 0 && !sees_every_holder(snapshot)) {
            // A holder whose open files could not be read may hold it (an orphaned worker),
            // or nobody does (a leak): which, and so the remedy, cannot be told.
            outcome.unknowns.push_back(fmt::format(
                "GPU {}: {} used that no listed process accounts for, and processes whose "
                "open files could not be read may hold it (run as root to tell)",
                gpu.index, format_bytes(unaccounted)));
        } else if (gpu.process_count == 0) {
            add(outcome, "soft_locked", gpu.index, std::nullopt,
                fmt::format("GPU {}: {} used and no process holds it (a GPU reset is the remedy)",
                            gpu.index, format_bytes(unaccounted)));
        } else {
            add(outcome, "unaccounted_memory", gpu.index, std::nullopt,
                fmt::format("GPU {}: {} used that no listed process accounts for", gpu.index,
                            format_bytes(unaccounted)));
        }
    }
}

void judge_holders(const Snapshot& snapshot, const CheckRequest& request, CheckOutcome& outcome) {
    for (const SnapshotProcess& process : snapshot.processes) {
        if (process.gpus.empty() || process.observer()) continue;
        const pid_t pid = process.info.pid;
        const std::string name = printable(process.info.comm);
        if (request.orphans && process.orphaned) {
            add(outcome, "orphaned_holder", process.gpus.front().gpu_index, pid,
                fmt::format("PID {} ({}) holds GPU {} and its parent is gone", pid, name,
                            process.gpus.front().gpu_index));
        }
        const bool allowed =
            !request.idle && (request.allowed_users.empty() ||
                              std::find(request.allowed_users.begin(), request.allowed_users.end(),
                                        process.info.user) != request.allowed_users.end());
        if (!allowed) {
            add(outcome, "unexpected_holder", process.gpus.front().gpu_index, pid,
                fmt::format("PID {} ({}, user {}) holds GPU {}", pid, name,
                            printable(process.info.user), process.gpus.front().gpu_index));
        }
    }
}

// The most specific reason first: the summary names it.
void judge_visibility(const Snapshot& snapshot, CheckOutcome& outcome) {
    if (!snapshot.unmatched_device_files.empty()) {
        std::string why = "no backend reports them";
        for (const BackendStatus& backend : snapshot.backends) {
            if (backend.name == "nvml" && !backend.loaded) why = "nvml: " + backend.detail;
        }
        outcome.unknowns.push_back(
            fmt::format("{} NVIDIA device file{} ({}) but no GPU behind {}: {}",
                        snapshot.unmatched_device_files.size(),
                        snapshot.unmatched_device_files.size() == 1 ? "" : "s",
                        fmt::join(snapshot.unmatched_device_files, ", "),
                        snapshot.unmatched_device_files.size() == 1 ? "it" : "them", why));
    }
    bool any_loaded = false;
    for (const BackendStatus& backend : snapshot.backends) any_loaded |= backend.loaded;
    if (!any_loaded && snapshot.gpus.empty()) {
        outcome.unknowns.push_back("no GPU backend loaded (no driver, or no permission)");
    }
    if (!snapshot.host_pid_namespace.value_or(false)) {
        outcome.unknowns.push_back(
            "the process table is not the host's PID namespace: GPU users in other namespaces "
            "cannot be seen (run with the host's PID namespace, hostPID: true)");
    }
    if (snapshot.process_scan_failed) {
        outcome.unknowns.push_back("the process table could not be read");
    } else if (snapshot.processes_denied > 0 && ::geteuid() != 0) {
        // Root may still be denied a few (another user namespace's); that is noted, but
        // without privilege every other user's holders are hidden.
        outcome.unknowns.push_back(
            fmt::format("{} processes' open files could not be read (run as root to see every "
                        "holder)",
                        snapshot.processes_denied));
    } else if (snapshot.processes_denied > 0) {
        outcome.notes.push_back(
            fmt::format("{} processes' open files could not be read", snapshot.processes_denied));
    }
}

}  // namespace

const char* to_string(CheckVerdict verdict) {
    switch (verdict) {
        case CheckVerdict::clean:
            return "clean";
        case CheckVerdict::problem:
            return "problem";
        case CheckVerdict::unknown:
            return "unknown";
    }
    return "unknown";
}

nlohmann::ordered_json check_json(const engine::CheckOutcome& outcome) {
    using json = nlohmann::ordered_json;
    json problems = json::array();
    for (const engine::CheckFinding& problem : outcome.problems) {
        problems.push_back(json{{"kind", problem.kind},
                                {"gpu", problem.gpu ? json(*problem.gpu) : json(nullptr)},
                                {"pid", problem.pid ? json(*problem.pid) : json(nullptr)},
                                {"detail", problem.detail}});
    }
    return json{{"schema_version", kCheckSchemaVersion},
                {"verdict", to_string(outcome.verdict)},
                {"summary", outcome.summary},
                {"gpus", outcome.gpus},
                {"problems", std::move(problems)},
                {"unknowns", outcome.unknowns},
                {"notes", outcome.notes}};
}

Result<CheckOutcome> health_check(Engine& engine, const CheckRequest& request) {
    if (request.idle && !request.allowed_users.empty()) {
        return fail(ErrorCategory::invalid_input,
                    "idle (no holder at all) and allowed users contradict: give one");
    }
    CheckOutcome outcome;
    std::size_t weak_findings = 0;
    int check_threshold = 0;
    const Snapshot snapshot = engine.snapshot().snapshot;
    outcome.gpus = snapshot.gpus.size();
    judge_visibility(snapshot, outcome);
    judge_gpus(snapshot, request, outcome);
    judge_holders(snapshot, request, outcome);
    if (request.rogue) {
        auto config = detect::load_rogue_config(engine.config().config_dir, std::nullopt);
        if (!config) {
            outcome.unknowns.push_back("rogue detection not run: " + config.error().what);
        } else {
            const RogueScoring scanned = score_rogues(engine.config(), snapshot, {}, *config);
            check_threshold = config->config.check_threshold;
            for (const detect::Assessment& finding : scanned.report.findings) {
                // A check drains nodes: a finding is a problem from check_threshold (one
                // sign only mining or hiding explains). Below it, weak signs together (a
                // build in /tmp that names itself) are noted; `audit --rogue` shows them.
                if (finding.score < config->config.check_threshold) {
                    outcome.notes.push_back(fmt::format(
                        "PID {} ({}) scores {} for rogue detection, below the {} a check "
                        "counts: gpukill audit --rogue shows its evidence",
                        finding.holder.info.pid, printable(finding.holder.info.comm), finding.score,
                        config->config.check_threshold));
                    ++weak_findings;
                    continue;
                }
                add(outcome, "rogue_process",
                    finding.holder.gpus.empty()
                        ? std::nullopt
                        : std::optional<unsigned>(finding.holder.gpus.front().gpu_index),
                    finding.holder.info.pid,
                    fmt::format("PID {} ({}) looks like a miner (score {}, {} risk)",
                                finding.holder.info.pid, printable(finding.holder.info.comm),
                                finding.score, detect::risk_name(finding.risk)));
            }
        }
    }
    std::stable_sort(outcome.problems.begin(), outcome.problems.end(),
                     [](const CheckFinding& a, const CheckFinding& b) {
                         return severity(a.kind) < severity(b.kind);
                     });
    // A problem seen is a problem, whatever else could not be seen.
    outcome.verdict = !outcome.problems.empty()   ? CheckVerdict::problem
                      : !outcome.unknowns.empty() ? CheckVerdict::unknown
                                                  : CheckVerdict::clean;
    switch (outcome.verdict) {
        case CheckVerdict::clean:
            outcome.summary = fmt::format("clean: {} GPU{}, no problem found", outcome.gpus,
                                          outcome.gpus == 1 ? "" : "s");
            // Within 80 columns: node-problem-detector shows this line as the condition.
            if (weak_findings > 0) {
                outcome.summary +=
                    fmt::format("; {} rogue finding{} under {} (audit --rogue)", weak_findings,
                                weak_findings == 1 ? "" : "s", check_threshold);
            }
            break;
        case CheckVerdict::problem:
            outcome.summary = fmt::format("{} problem{}: {}", outcome.problems.size(),
                                          outcome.problems.size() == 1 ? "" : "s",
                                          outcome.problems.front().detail);
            break;
        case CheckVerdict::unknown:
            outcome.summary = "unknown: " + outcome.unknowns.front();
            break;
    }
    return outcome;
}

}  // namespace gpukill::engine

#include "guard/evaluate.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "guard/rules.hpp"
#include "model/quoted_text.hpp"
#include "reclaim/safety_check.hpp"
#include "reclaim/system_program.hpp"

namespace gpukill::guard {
namespace {

using rules::Candidate;
using rules::Context;
using rules::Violation;

std::optional<std::string> protection(const EvaluationInput& input, const ProcessInfo& info) {
    const ProtectedSet& set = input.policy.protected_processes;
    if (info.pid <= 1) return "PID 1 (init)";
    if (set.pids.contains(info.pid)) return fmt::format("protected PID {} (policy)", info.pid);
    if (!info.user.empty() && set.users.contains(info.user)) {
        return fmt::format("protected user {} (policy)", info.user);
    }
    // A program protects only where the process runs it as a system program: its name and
    // command line are its user's to choose (reclaim/system_program.hpp).
    const bool system_program = input.system_programs.contains({info.pid, info.start_time_ticks});
    if (system_program && reclaim::executable_named(info, set.executables)) {
        return "protected executable (policy)";
    }
    if (reclaim::is_protected(info, input.reclaim_protected, input.system_programs)) {
        return "on gpukill's protected list (built-in or protected.yaml)";
    }
    return std::nullopt;
}

std::vector<Candidate> candidates_of(const EvaluationInput& input) {
    std::vector<Candidate> candidates;
    for (const SnapshotProcess& process : input.snapshot.processes) {
        // An observer (a monitoring client: no context, no memory) uses no GPU.
        if (!process.info_complete || process.info.kernel_thread || process.gpus.empty() ||
            process.observer()) {
            continue;
        }
        Candidate candidate{.process = &process,
                            .protected_because = protection(input, process.info)};
        for (const ProcessGpuUse& use : process.gpus) {
            if (use.memory_bytes) candidate.memory_bytes += *use.memory_bytes;
        }
        candidates.push_back(std::move(candidate));
    }
    return candidates;
}

// One violation per process and rule: a process breaking a user's GPU rule on two GPUs
// is one breach with both reasons.
std::vector<Violation> merged(std::vector<Violation> violations) {
    std::vector<Violation> out;
    for (Violation& violation : violations) {
        auto same = std::find_if(out.begin(), out.end(), [&](const Violation& held) {
            return held.candidate == violation.candidate && held.rule_id == violation.rule_id;
        });
        if (same == out.end()) {
            out.push_back(std::move(violation));
        } else if (same->why != violation.why) {
            same->why += "; " + violation.why;
        }
    }
    return out;
}

Decision decide(const EvaluationInput& input, const Candidate& candidate,
                const Violation& violation, const GuardState& previous, GuardState& next) {
    const ProcessInfo& info = candidate.info();
    Decision decision{.identity = info.identity(),
                      .name = info.comm,
                      .user = info.user,
                      .uid = info.uid,
                      .rule_id = violation.rule_id,
                      .enforcement = violation.enforcement,
                      .why = violation.why};
    for (const ProcessGpuUse& use : candidate.process->gpus) decision.gpus.push_back(use.gpu_index);
    if (candidate.protected_because) {
        decision.verdict = Verdict::protected_process;
        decision.protected_because = *candidate.protected_because;
        return decision;
    }
    const std::int64_t now = input.clock.unix_ms();
    const bool dry_run = input.policy.mode != Mode::enforce;
    const WarningKey key{info.pid, info.start_time_ticks, violation.rule_id};
    std::optional<WarningRecord> record;
    if (auto held = previous.warnings.find(key); held != previous.warnings.end()) {
        // A dry run told nobody: enforcement starts its own warning.
        if (!(held->second.dry_run && !dry_run)) record = held->second;
    }
    const Enforcement& enforcement = violation.enforcement;
    const Verdict act = enforcement.action == Action::kill ? Verdict::kill : Verdict::terminate;
    const std::int64_t grace_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(enforcement.grace_period).count();
    if (enforcement.action != Action::warn && grace_ms == 0) {
        decision.verdict = act;
        decision.acts_at_unix_ms = now;
        return decision;
    }
    if (!record) {
        record = WarningRecord{.first_warned_unix_ms = now, .dry_run = dry_run};
        decision.verdict = Verdict::warn;
    } else if (enforcement.action == Action::warn) {
        decision.verdict = Verdict::warned;
    } else {
        decision.verdict = now < record->first_warned_unix_ms + grace_ms ? Verdict::in_grace : act;
    }
    decision.warned_at_unix_ms = record->first_warned_unix_ms;
    if (enforcement.action != Action::warn) {
        decision.acts_at_unix_ms = record->first_warned_unix_ms + grace_ms;
    }
    next.warnings[key] = *record;
    return decision;
}

}  // namespace

std::chrono::seconds max_sample_gap(const Policy& policy) {
    return std::max<std::chrono::seconds>(2 * policy.check_interval, std::chrono::seconds(60));
}

std::chrono::seconds history_needed(const Policy& policy) {
    std::chrono::seconds longest{0};
    for (const RunawayRule& rule : policy.rules) {
        if (rule.kind == RunawayKind::stuck || rule.kind == RunawayKind::idle) {
            longest = std::max(longest, rule.duration);
        }
    }
    return longest + max_sample_gap(policy);
}

Evaluation evaluate(const EvaluationInput& input) {
    Context context{.input = input, .candidates = candidates_of(input)};
    std::vector<Violation> violations;
    rules::limit_violations(context, violations);
    rules::project_violations(context, violations);
    rules::gpu_violations(context, violations);
    rules::runaway_violations(context, violations);
    violations = merged(std::move(violations));

    // Warnings from another boot may name other processes with the same PID and start.
    const GuardState empty;
    const bool same_boot = !input.state.boot_time_unix_s || !input.snapshot.boot_time_unix_s ||
                           *input.state.boot_time_unix_s == *input.snapshot.boot_time_unix_s;
    const GuardState& previous = same_boot ? input.state : empty;

    Evaluation evaluation;
    evaluation.state.boot_time_unix_s = input.snapshot.boot_time_unix_s
                                            ? input.snapshot.boot_time_unix_s
                                            : input.state.boot_time_unix_s;
    for (const Violation& violation : violations) {
        evaluation.decisions.push_back(decide(input, context.candidates[violation.candidate],
                                              violation, previous, evaluation.state));
    }
    std::sort(evaluation.decisions.begin(), evaluation.decisions.end(),
              [](const Decision& a, const Decision& b) {
                  if (a.identity.pid != b.identity.pid) return a.identity.pid < b.identity.pid;
                  return a.rule_id < b.rule_id;
              });
    return evaluation;
}

}  // namespace gpukill::guard

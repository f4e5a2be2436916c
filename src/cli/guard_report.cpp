#include "cli/guard_report.hpp"

#include "model/guard_decision_text.hpp"

#include <fmt/format.h>

#include "model/human_format.hpp"
#include "model/json_optional.hpp"
#include "model/snapshot_json.hpp"

namespace gpukill::cli {
namespace {

using guard::Action;
using guard::Decision;
using guard::Verdict;

std::string gpus_text(const std::vector<unsigned>& gpus) {
    std::string text;
    for (unsigned gpu : gpus) text += (text.empty() ? "" : ",") + std::to_string(gpu);
    return text.empty() ? "-" : text;
}

}  // namespace

std::string render_guard_report(const engine::GuardTestOutcome& report) {
    const std::vector<Decision>& decisions = report.decisions;
    std::string out = fmt::format(
        "policy {} (mode {}), {} snapshot, {} process{} on GPUs checked\n", report.policy_source,
        guard::to_string(report.policy.mode), report.snapshot_source, report.processes_checked,
        report.processes_checked == 1 ? "" : "es");
    for (const std::string& note : report.notes) out += "note: " + note + "\n";
    if (decisions.empty()) {
        out += "no process breaks a rule\n";
    }
    pid_t shown_pid = 0;
    std::uint64_t shown_start = 0;
    for (const Decision& decision : decisions) {
        if (decision.identity.pid != shown_pid ||
            decision.identity.start_time_ticks != shown_start) {
            shown_pid = decision.identity.pid;
            shown_start = decision.identity.start_time_ticks;
            out += fmt::format("\nPID {} {} (user {}, GPU {})\n", decision.identity.pid,
                               printable(decision.name), printable(decision.user),
                               gpus_text(decision.gpus));
        }
        out += fmt::format("  {}: {}\n    -> {}\n", decision.rule_id, printable(decision.why),
                           describe_outcome(decision, report.policy.terminate_timeout));
    }
    switch (report.policy.mode) {
        case guard::Mode::enforce:
            out += "\nmode enforce: guard run would do the above; nothing was signalled now\n";
            break;
        case guard::Mode::dry_run:
            out += "\nmode dry-run: guard run would only log the above; nothing was signalled\n";
            break;
        case guard::Mode::off:
            out += "\nmode off: guard run would do nothing; nothing was signalled\n";
            break;
    }
    return out;
}

}  // namespace gpukill::cli

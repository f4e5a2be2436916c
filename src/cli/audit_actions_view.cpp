#include "cli/audit_actions_view.hpp"

#include <fmt/format.h>

#include "cli/text_table.hpp"
#include "model/human_format.hpp"

namespace gpukill::cli {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t kTargetsNamed = 3;

std::string text_of(const Json& object, const char* key) {
    auto found = object.find(key);
    if (found == object.end()) return "";
    if (found->is_string()) return found->get<std::string>();
    if (found->is_number_integer()) return std::to_string(found->get<std::int64_t>());
    return "";
}

bool flag(const Json& object, const char* key) {
    auto found = object.find(key);
    return found != object.end() && found->is_boolean() && found->get<bool>();
}

// "4242 python (bob)"; a refusal's own "user" is who ran gpukill, so it is left out.
std::string process_text(const Json& target, bool with_owner = true) {
    std::string text = text_of(target, "pid");
    if (text.empty()) text = text_of(target, "argument");
    const std::string name = text_of(target, "name");
    if (!name.empty()) text += (text.empty() ? "" : " ") + name;
    const std::string user = with_owner ? text_of(target, "user") : "";
    if (!user.empty()) text += " (" + user + ")";
    return text;
}

std::string signals_text(const Json& record) {
    auto found = record.find("signals_sent");
    if (found == record.end() || !found->is_array()) return "";
    std::string out;
    for (const Json& signal : *found) {
        if (!signal.is_string()) continue;
        out += (out.empty() ? "" : ", ") + signal.get<std::string>();
    }
    return out;
}

std::string planned_targets(const Json& record) {
    auto targets = record.find("targets");
    if (targets == record.end() || !targets->is_array()) return "";
    std::string names;
    std::size_t shown = 0;
    for (const Json& target : *targets) {
        if (!target.is_object()) continue;
        if (shown == kTargetsNamed) {
            names += ", ...";
            break;
        }
        names += (shown == 0 ? "" : ", ") + text_of(target, "pid") + " " + text_of(target, "name");
        ++shown;
    }
    const std::size_t count = targets->size();
    return fmt::format("{} target{}{}{}", count, count == 1 ? "" : "s", count > 0 ? ": " : "",
                       names);
}

std::string planned_outcome(const Json& record) {
    if (flag(record, "aborted")) return "aborted";
    if (flag(record, "needs_batch_confirmation")) return "preview (needs --batch)";
    auto refusals = record.find("refusals");
    const std::size_t refused =
        refusals != record.end() && refusals->is_array() ? refusals->size() : 0;
    return refused > 0 ? fmt::format("planned, {} refused", refused) : "planned";
}

std::string verified_outcome(const Json& record) {
    if (flag(record, "soft_locked")) return "soft-locked (reset the GPU)";
    auto reclaimed = record.find("memory_reclaimed_bytes");
    std::string amount;
    if (reclaimed != record.end() && reclaimed->is_number_unsigned()) {
        amount = " " + format_bytes(reclaimed->get<std::uint64_t>());
    }
    if (flag(record, "released")) return "released" + amount;
    return "not released" + (amount.empty() ? "" : " (reclaimed" + amount + ")");
}

// "GPU 0", "GPUs 0, 1" from an array of indices or of objects with an "index".
std::string gpus_text(const Json& record, const char* key) {
    auto found = record.find(key);
    if (found == record.end() || !found->is_array() || found->empty()) return "";
    std::vector<std::string> indices;
    for (const Json& gpu : *found) {
        if (gpu.is_number_integer()) indices.push_back(std::to_string(gpu.get<std::int64_t>()));
        if (gpu.is_object()) indices.push_back(text_of(gpu, "index"));
    }
    return fmt::format("GPU{} {}", indices.size() == 1 ? "" : "s", fmt::join(indices, ", "));
}

std::string reset_planned_outcome(const Json& record) {
    std::string outcome = text_of(record, "decision");
    auto holders = record.find("holders");
    if (holders != record.end() && holders->is_array() && !holders->empty()) {
        outcome += fmt::format(", {} holder{}", holders->size(), holders->size() == 1 ? "" : "s");
    }
    if (flag(record, "dry_run")) outcome += " (dry run)";
    return outcome;
}

std::string reset_result_outcome(const Json& record) {
    auto reset = record.find("reset");
    const bool attempted = reset != record.end() && reset->is_object();
    if (attempted && !flag(*reset, "succeeded")) {
        const std::string failure = text_of(*reset, "failure");
        return "failed" + (failure.empty() ? "" : ": " + failure);
    }
    std::string outcome = flag(record, "verified") ? "reset, verified" : "reset, not verified";
    auto freed = record.find("memory_freed_bytes");
    if (freed != record.end() && freed->is_number_unsigned()) {
        outcome += ", " + format_bytes(freed->get<std::uint64_t>()) + " freed";
    }
    return outcome;
}

// "score 90 (critical): miner_name, stratum_url"
std::string rogue_outcome(const Json& record) {
    std::string outcome =
        fmt::format("score {} ({})", text_of(record, "score"), text_of(record, "risk"));
    auto evidence = record.find("evidence");
    if (evidence != record.end() && evidence->is_array() && !evidence->empty()) {
        std::vector<std::string> signals;
        for (const Json& piece : *evidence) {
            if (piece.is_object()) signals.push_back(text_of(piece, "signal"));
        }
        outcome += fmt::format(": {}", fmt::join(signals, ", "));
    }
    return outcome;
}

// A record naming a process under "process" (rogue findings, the guard's records).
std::string process_of(const Json& record) {
    auto process = record.find("process");
    return process != record.end() && process->is_object() ? process_text(*process) : "";
}

}  // namespace

ActionRow describe_action(const Json& record) {
    ActionRow row;
    row.action = text_of(record, "event");
    const std::string sudo_user = text_of(record, "sudo_user");
    row.by = sudo_user.empty() ? text_of(record, "user") : sudo_user + " (sudo)";
    auto target = record.find("target");
    if (target != record.end() && target->is_object()) row.target = process_text(*target);

    if (row.action == "planned") {
        row.target = planned_targets(record);
        row.outcome = planned_outcome(record);
    } else if (row.action == "refused") {
        row.target = process_text(record, false);
        row.outcome = "refused: " + text_of(record, "kind");
    } else if (row.action == "signal_intent") {
        row.outcome = "sending " + text_of(record, "signal");
    } else if (row.action == "signalled") {
        // One record per signal delivered; older logs hold one per target, without
        // `signal`, listing them all.
        const std::string signal = text_of(record, "signal");
        row.outcome = signal.empty() ? signals_text(record) : signal;
    } else if (row.action == "result") {
        const std::string signals = signals_text(record);
        row.outcome = text_of(record, "outcome") + (signals.empty() ? "" : " (" + signals + ")");
    } else if (row.action == "verified") {
        row.target = "GPU " + text_of(record, "gpu");
        row.outcome = verified_outcome(record);
    } else if (row.action == "reset_planned") {
        row.target = gpus_text(record, "gpus");
        row.outcome = reset_planned_outcome(record);
    } else if (row.action == "reset_refused") {
        row.target = gpus_text(record, "gpus");
        const std::string why = text_of(record, "why");
        row.outcome = "refused" + (why.empty() ? "" : ": " + why);
    } else if (row.action == "reset_result") {
        row.target = "GPU " + text_of(record, "gpu");
        row.outcome = reset_result_outcome(record);
    } else if (row.action == "rogue_finding") {
        row.target = process_of(record);
        row.outcome = rogue_outcome(record);
    } else if (row.action == "rogue_config_installed") {
        row.target = text_of(record, "path");
        row.outcome = "installed from " + text_of(record, "from");
    } else if (row.action == "guard_warning") {
        row.target = process_of(record);
        row.outcome =
            fmt::format("warned: {} ({})", text_of(record, "rule"), text_of(record, "rule_action"));
    } else if (row.action == "guard_action") {
        row.target = process_of(record);
        const std::string outcome = text_of(record, "outcome");
        row.outcome = text_of(record, "action") + ": " + (outcome.empty() ? "dry run" : outcome);
    } else if (row.action == "guard_policy_changed") {
        row.target = text_of(record, "path");
        row.outcome = text_of(record, "change");
    } else {
        // Events added later: the usual field names.
        if (row.target.empty() && record.contains("gpu"))
            row.target = "GPU " + text_of(record, "gpu");
        row.outcome = text_of(record, "outcome");
    }
    return row;
}

std::string actions_table(const engine::ActionsOutcome& log, OutputWidth width) {
    const AuditScope& scope = log.scope;
    std::string out = fmt::format("Actions ({})\nLog: {}\n", describe_window(scope), scope.source);
    if (log.skipped_lines > 0) {
        out += fmt::format("{} line{} of the log skipped: not a record (cut short or damaged)\n",
                           log.skipped_lines, log.skipped_lines == 1 ? "" : "s");
    }
    if (log.records.empty()) return out + "\nNo action matched in this window.\n";
    TextTable table({"TIME", "BY", "ACTION", "TARGET", "OUTCOME"});
    for (const Json& record : log.records) {
        const ActionRow row = describe_action(record);
        table.add_row({format_local_time(record.value("timestamp_unix_ms", std::int64_t{0})),
                       row.by, row.action, row.target, row.outcome});
    }
    return out + "\n" + table.render(0, width);
}

}  // namespace gpukill::cli

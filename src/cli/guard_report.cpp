#include "cli/guard_report.hpp"

#include <fmt/format.h>

#include "cli/json_fields.hpp"
#include "model/human_format.hpp"
#include "model/quoted_text.hpp"

namespace gpukill::cli {
namespace {

using Json = nlohmann::ordered_json;

std::string decision_gpus(const Json& gpus) {
    std::string text;
    for (const Json& gpu : gpus) {
        if (gpu.is_number_integer()) {
            text += (text.empty() ? "" : ",") + std::to_string(gpu.get<std::int64_t>());
        }
    }
    return text.empty() ? "-" : text;
}

}  // namespace

std::string render_guard_report(const engine::GuardTestOutcome& report) {
    return render_guard_document(report.document());
}

std::string render_guard_document(const nlohmann::ordered_json& doc) {
    const auto processes = json_fields::number_or<std::size_t>(doc, "processes_checked", 0);
    const std::string mode = json_fields::text(doc, "mode");
    std::string out = fmt::format(
        "policy {} (mode {}), {} snapshot, {} process{} on GPUs checked\n",
        printable(json_fields::text(doc, "policy")), printable(mode),
        printable(json_fields::text(doc, "snapshot")), processes, processes == 1 ? "" : "es");
    for (const Json& note : json_fields::list(doc, "notes")) {
        if (note.is_string()) out += "note: " + printable(note.get<std::string>()) + "\n";
    }
    const Json& decisions = json_fields::list(doc, "decisions");
    if (decisions.empty()) out += "no process breaks a rule\n";
    std::string shown;  // the process (PID and start time) whose decisions follow
    for (const Json& decision : decisions) {
        if (!decision.is_object()) continue;
        const std::string identity = json_fields::text(decision, "pid") + "/" +
                                     json_fields::text(decision, "start_time_ticks");
        if (identity != shown) {
            shown = identity;
            out +=
                fmt::format("\nPID {} {} (user {}, GPU {})\n", json_fields::text(decision, "pid"),
                            printable(json_fields::text(decision, "name")),
                            printable(json_fields::text(decision, "user")),
                            decision_gpus(json_fields::list(decision, "gpus")));
        }
        out += fmt::format("  {}: {}\n    -> {}\n", printable(json_fields::text(decision, "rule")),
                           printable(json_fields::text(decision, "why")),
                           printable(json_fields::text(decision, "outcome")));
    }
    if (mode == "enforce") {
        out += "\nmode enforce: guard run would do the above; nothing was signalled now\n";
    } else if (mode == "dry-run") {
        out += "\nmode dry-run: guard run would only log the above; nothing was signalled\n";
    } else if (mode == "off") {
        out += "\nmode off: guard run would do nothing; nothing was signalled\n";
    }
    return out;
}

}  // namespace gpukill::cli

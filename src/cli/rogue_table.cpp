#include "cli/rogue_table.hpp"

#include <fmt/format.h>

#include "cli/json_fields.hpp"
#include "cli/text_table.hpp"
#include "model/human_format.hpp"

namespace gpukill::cli {
namespace {

constexpr std::size_t kTopEvidenceWidth = 60;

std::string shortened(std::string text, std::size_t width) {
    if (text.size() <= width) return text;
    std::size_t cut = width - 3;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    text.resize(cut);
    return text + "...";
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        const auto end = text.find('\n', start);
        lines.push_back(text.substr(start, end - start));
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return lines;
}

using Json = nlohmann::ordered_json;

// One header for the group; under each process row, its evidence and notes.
std::string render_group(const Json& group, bool show_allowed, OutputWidth width) {
    TextTable rows({"PID", "USER", "NAME", "SCORE", "RISK", "TOP EVIDENCE"},
                   {true, false, false, true, false, false});
    std::vector<const Json*> items;
    for (const Json& item : group) {
        if (!item.is_object()) continue;
        items.push_back(&item);
        const Json& evidence = json_fields::list(item, "evidence");
        const std::string top =
            evidence.empty() || !evidence.front().is_object()
                ? "-"
                : shortened(json_fields::text(evidence.front(), "detail"), kTopEvidenceWidth);
        rows.add_row({json_fields::text(item, "pid"), printable(json_fields::text(item, "user")),
                      printable(json_fields::text(item, "name")), json_fields::text(item, "score"),
                      json_fields::text(item, "risk"), printable(top)});
    }
    const std::vector<std::string> row_lines = lines_of(rows.render(0, width));
    std::string out = row_lines.front() + "\n";
    for (std::size_t i = 0; i < items.size(); ++i) {
        const Json& item = *items[i];
        out += row_lines[i + 1] + "\n";
        TextTable evidence({"WEIGHT", "SIGNAL", "EVIDENCE"}, {true, false, false});
        for (const Json& piece : json_fields::list(item, "evidence")) {
            if (!piece.is_object()) continue;
            evidence.add_row({"+" + json_fields::text(piece, "weight"),
                              json_fields::text(piece, "signal"),
                              printable(json_fields::text(piece, "detail"))});
        }
        const std::vector<std::string> evidence_lines = lines_of(evidence.render(6, width));
        for (std::size_t line = 1; line < evidence_lines.size(); ++line) {
            out += evidence_lines[line] + "\n";  // without the header: the columns speak
        }
        auto allowed = item.find("allowed_by");
        if (show_allowed && allowed != item.end() && allowed->is_object()) {
            out += fmt::format("      allowed by {} {}\n", json_fields::text(*allowed, "kind"),
                               printable(json_fields::text(*allowed, "entry")));
        }
        for (const Json& note : json_fields::list(item, "notes")) {
            if (note.is_string()) out += "      note: " + printable(note.get<std::string>()) + "\n";
        }
    }
    return out;
}

}  // namespace

std::string render_rogue_table(const nlohmann::ordered_json& doc, OutputWidth width) {
    std::string out;
    const std::size_t examined = json_fields::number_or<std::size_t>(doc, "processes_examined", 0);
    const Json& findings = json_fields::list(doc, "findings");
    const Json& allowed = json_fields::list(doc, "allowed");
    static const Json kNoHistory = Json::object();
    auto usage = doc.find("usage_history");
    const Json& history_doc = usage != doc.end() && usage->is_object() ? *usage : kNoHistory;
    auto available = history_doc.find("available");
    auto hours = history_doc.find("window_hours");
    const std::string history =
        available != history_doc.end() && available->is_boolean() && available->get<bool>()
            ? fmt::format(
                  "last {:g} h of usage history",
                  hours != history_doc.end() && hours->is_number() ? hours->get<double>() : 0.0)
            : "no usage history";
    const std::string threshold = json_fields::text(doc, "report_threshold");
    const std::string config = printable(json_fields::text(doc, "config_source"));
    if (findings.empty()) {
        out += fmt::format(
            "No rogue processes among {} GPU process{} (score >= {}; {}; config: {}).\n", examined,
            examined == 1 ? "" : "es", threshold, history, config);
    } else {
        out += fmt::format(
            "{} suspicious process{} among {} GPU process{} (score >= {}; {}; "
            "config: {}):\n\n",
            findings.size(), findings.size() == 1 ? "" : "es", examined, examined == 1 ? "" : "es",
            threshold, history, config);
        out += render_group(findings, false, width);
    }
    if (!allowed.empty()) {
        out += fmt::format("{}Allowed by the configuration (not findings):\n\n",
                           findings.empty() ? "\n" : "");
        out += render_group(allowed, true, width);
    }
    const std::size_t partial =
        json_fields::number_or<std::size_t>(doc, "processes_not_fully_examined", 0);
    if (partial > 0) {
        out += fmt::format(
            "Note: {} of {} processes could not be fully examined (executable or descriptors not "
            "readable without privilege): run as root to judge every signal.\n",
            partial, examined);
    }
    const std::string note = json_fields::text(history_doc, "note");
    if (!note.empty()) out += "Note: " + printable(note) + "\n";
    return fit_to_width(out, width);
}

}  // namespace gpukill::cli

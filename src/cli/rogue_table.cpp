#include "cli/rogue_table.hpp"

#include <fmt/format.h>

#include "cli/text_table.hpp"
#include "model/human_format.hpp"

namespace gpukill::cli {
namespace {

using Json = nlohmann::ordered_json;

std::string text_of(const Json& doc, const char* field) {
    const auto it = doc.find(field);
    return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
}

template <class T>
T number_of(const Json& doc, const char* field) {
    const auto it = doc.find(field);
    return it != doc.end() && it->is_number() ? it->get<T>() : T{};
}

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

// One header for the group; under each process row, its evidence and notes.
std::string render_group(const Json& group, bool show_allowed, OutputWidth width) {
    TextTable rows({"PID", "USER", "NAME", "SCORE", "RISK", "TOP EVIDENCE"},
                   {true, false, false, true, false, false});
    for (const Json& item : group) {
        const Json& evidence = item["evidence"];
        const std::string top =
            evidence.empty() ? "-"
                             : shortened(text_of(evidence.front(), "detail"), kTopEvidenceWidth);
        rows.add_row({std::to_string(number_of<long>(item, "pid")),
                      printable(text_of(item, "user")), printable(text_of(item, "name")),
                      std::to_string(number_of<int>(item, "score")), text_of(item, "risk"),
                      printable(top)});
    }
    const std::vector<std::string> row_lines = lines_of(rows.render(0, width));
    std::string out = row_lines.front() + "\n";
    for (std::size_t i = 0; i < group.size(); ++i) {
        const Json& item = group[i];
        out += row_lines[i + 1] + "\n";
        TextTable evidence({"WEIGHT", "SIGNAL", "EVIDENCE"}, {true, false, false});
        for (const Json& piece : item["evidence"]) {
            evidence.add_row({fmt::format("+{}", number_of<int>(piece, "weight")),
                              text_of(piece, "signal"), printable(text_of(piece, "detail"))});
        }
        const std::vector<std::string> evidence_lines = lines_of(evidence.render(6, width));
        for (std::size_t line = 1; line < evidence_lines.size(); ++line) {
            out += evidence_lines[line] + "\n";  // without the header: the columns speak
        }
        const Json& allowed = item.contains("allowed_by") ? item["allowed_by"] : Json();
        if (show_allowed && allowed.is_object()) {
            out += fmt::format("      allowed by {} {}\n", text_of(allowed, "kind"),
                               printable(text_of(allowed, "entry")));
        }
        if (item.contains("notes")) {
            for (const Json& note : item["notes"]) {
                if (note.is_string())
                    out += "      note: " + printable(note.get<std::string>()) + "\n";
            }
        }
    }
    return out;
}

}  // namespace

std::string render_rogue_table(const nlohmann::ordered_json& report, OutputWidth width) {
    std::string out;
    const auto examined = number_of<std::size_t>(report, "processes_examined");
    const Json& usage = report.contains("usage_history") ? report["usage_history"] : Json();
    const bool history_available = usage.is_object() && usage.value("available", false);
    const std::string history =
        history_available
            ? fmt::format("last {:g} h of usage history", number_of<double>(usage, "window_hours"))
            : "no usage history";
    const std::string threshold = std::to_string(number_of<int>(report, "report_threshold"));
    const std::string config = printable(text_of(report, "config_source"));
    const Json findings = report.value("findings", Json::array());
    const Json allowed = report.value("allowed", Json::array());
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
    const auto partly = number_of<std::size_t>(report, "processes_not_fully_examined");
    if (partly > 0) {
        out += fmt::format(
            "Note: {} of {} processes could not be fully examined (executable or descriptors not "
            "readable without privilege): run as root to judge every signal.\n",
            partly, examined);
    }
    if (usage.is_object() && usage.contains("note") && usage["note"].is_string()) {
        out += "Note: " + printable(usage["note"].get<std::string>()) + "\n";
    }
    return fit_to_width(out, width);
}

}  // namespace gpukill::cli

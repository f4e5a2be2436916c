#include "cli/rogue_table.hpp"

#include <fmt/format.h>

#include "cli/text_table.hpp"
#include "model/human_format.hpp"

namespace gpukill::cli {
namespace {

using detect::Assessment;

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
std::string render_group(const std::vector<Assessment>& group, bool show_allowed,
                         OutputWidth width) {
    TextTable rows({"PID", "USER", "NAME", "SCORE", "RISK", "TOP EVIDENCE"},
                   {true, false, false, true, false, false});
    for (const Assessment& item : group) {
        const std::string top = item.evidence.empty()
                                    ? "-"
                                    : shortened(item.evidence.front().detail, kTopEvidenceWidth);
        rows.add_row({std::to_string(item.holder.info.pid), printable(item.holder.info.user),
                      printable(item.holder.info.comm), std::to_string(item.score),
                      std::string(detect::risk_name(item.risk)), printable(top)});
    }
    const std::vector<std::string> row_lines = lines_of(rows.render(0, width));
    std::string out = row_lines.front() + "\n";
    for (std::size_t i = 0; i < group.size(); ++i) {
        const Assessment& item = group[i];
        out += row_lines[i + 1] + "\n";
        TextTable evidence({"WEIGHT", "SIGNAL", "EVIDENCE"}, {true, false, false});
        for (const auto& piece : item.evidence) {
            evidence.add_row({fmt::format("+{}", piece.weight),
                              std::string(detect::signal_name(piece.signal)),
                              printable(piece.detail)});
        }
        const std::vector<std::string> evidence_lines = lines_of(evidence.render(6, width));
        for (std::size_t line = 1; line < evidence_lines.size(); ++line) {
            out += evidence_lines[line] + "\n";  // without the header: the columns speak
        }
        if (show_allowed && item.allowed) {
            out += fmt::format("      allowed by {} {}\n", item.allowed->kind,
                               printable(item.allowed->entry));
        }
        for (const std::string& note : item.notes) out += "      note: " + printable(note) + "\n";
    }
    return out;
}

}  // namespace

std::string render_rogue_table(const detect::RogueReport& report,
                               const detect::ReportContext& context, OutputWidth width) {
    std::string out;
    const std::size_t examined = report.processes_examined;
    const std::string history =
        context.history_available
            ? fmt::format("last {:g} h of usage history", context.window_hours)
            : "no usage history";
    if (report.findings.empty()) {
        out += fmt::format(
            "No rogue processes among {} GPU process{} (score >= {}; {}; config: {}).\n", examined,
            examined == 1 ? "" : "es", context.report_threshold, history,
            printable(context.config_source));
    } else {
        out += fmt::format(
            "{} suspicious process{} among {} GPU process{} (score >= {}; {}; "
            "config: {}):\n\n",
            report.findings.size(), report.findings.size() == 1 ? "" : "es", examined,
            examined == 1 ? "" : "es", context.report_threshold, history,
            printable(context.config_source));
        out += render_group(report.findings, false, width);
    }
    if (!report.allowed.empty()) {
        out += fmt::format("{}Allowed by the configuration (not findings):\n\n",
                           report.findings.empty() ? "\n" : "");
        out += render_group(report.allowed, true, width);
    }
    if (report.processes_not_fully_examined > 0) {
        out += fmt::format(
            "Note: {} of {} processes could not be fully examined (executable or descriptors not "
            "readable without privilege): run as root to judge every signal.\n",
            report.processes_not_fully_examined, examined);
    }
    if (context.history_note) out += "Note: " + printable(*context.history_note) + "\n";
    return fit_to_width(out, width);
}

}  // namespace gpukill::cli

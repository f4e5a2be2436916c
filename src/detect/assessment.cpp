#include "detect/assessment.hpp"

#include <algorithm>

#include "detect/cmdline_signals.hpp"
#include "detect/executable_signals.hpp"
#include "detect/name_signals.hpp"
#include "detect/usage_shape.hpp"

namespace gpukill::detect {
namespace {

void append(std::vector<Evidence>& to, std::vector<Evidence> from) {
    for (Evidence& item : from) add_evidence(to, std::move(item));
}

bool ranks_before(const Assessment& a, const Assessment& b) {
    if (a.score != b.score) return a.score > b.score;
    return a.holder.info.pid < b.holder.info.pid;
}

}  // namespace

Assessment assess(const ProcessFacts& facts, const RogueConfig& config) {
    Assessment result;
    result.holder = facts.holder;
    const ProcessInfo& info = facts.holder.info;
    append(result.evidence, judge_names(info, config));
    append(result.evidence, judge_borrowed_names(info, facts.executable_file, config));
    append(result.evidence, judge_command_line(info.cmdline, config));
    for (const ArgumentFile& file : facts.config_files) {
        append(result.evidence, judge_config_file(file, config));
    }
    for (const std::string& note : facts.config_file_notes) result.notes.push_back(note);
    append(result.evidence, judge_executable(info, config));
    if (facts.executable_scan) {
        ContentVerdict content = judge_executable_content(*facts.executable_scan, config);
        if (content.evidence) add_evidence(result.evidence, std::move(*content.evidence));
        result.notes.push_back(std::move(content.note));
    } else if (!facts.executable_note.empty()) {
        result.notes.push_back("executable content not judged: " + facts.executable_note);
    }
    // The shape first: a pool connection counts for more from a GPU busy for long.
    std::optional<ShapeVerdict> shape;
    if (facts.history) shape = judge_usage_shape(*facts.history, config);
    if (facts.network) {
        append(result.evidence, judge_network(*facts.network, config));
        if (auto busy = judge_busy_pool_connection(
                *facts.network, shape ? shape->busy_minutes : std::nullopt, config)) {
            result.evidence.push_back(std::move(*busy));
        }
    } else {
        result.notes.push_back("network not judged: " + facts.network_note);
    }
    if (shape) {
        if (shape->evidence) result.evidence.push_back(std::move(*shape->evidence));
        result.notes.push_back(std::move(shape->note));
    } else {
        result.notes.push_back(facts.history_note.empty()
                                   ? std::string("no usage history: shape not judged")
                                   : facts.history_note);
    }
    if (auto unattended = judge_unattended(facts.session, config)) {
        result.evidence.push_back(std::move(*unattended));
    }
    if (!info.exe && !info.kernel_thread) {
        result.notes.push_back(
            "executable unreadable (not permitted): names, location and deletion not judged");
    }
    std::stable_sort(result.evidence.begin(), result.evidence.end(),
                     [](const Evidence& a, const Evidence& b) { return a.weight > b.weight; });
    result.score = total_score(result.evidence);
    result.risk = risk_for(result.score, config.risk);
    result.allowed = allowed_by(info, config.allow);
    result.fully_examined = facts.network.has_value() && (info.exe || info.kernel_thread);
    return result;
}

RogueReport build_report(std::vector<Assessment> assessments, const RogueConfig& config) {
    RogueReport report;
    report.processes_examined = assessments.size();
    for (Assessment& assessment : assessments) {
        if (!assessment.fully_examined) ++report.processes_not_fully_examined;
        if (assessment.score < config.report_threshold) continue;
        (assessment.allowed ? report.allowed : report.findings).push_back(std::move(assessment));
    }
    std::sort(report.findings.begin(), report.findings.end(), ranks_before);
    std::sort(report.allowed.begin(), report.allowed.end(), ranks_before);
    return report;
}

}  // namespace gpukill::detect

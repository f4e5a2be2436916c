#include "detect/rogue_json.hpp"

#include "model/json_optional.hpp"
#include "model/snapshot_json.hpp"

namespace gpukill::detect {
namespace {

using json = nlohmann::ordered_json;

json container_json(const std::optional<ContainerInfo>& container) {
    if (!container) return nullptr;
    return json{{"runtime", container->runtime},
                {"id", container->id.empty() ? json(nullptr) : json(container->id)},
                {"pod_uid", or_null(container->pod_uid)}};
}

json process_json(const SnapshotProcess& holder) {
    const ProcessInfo& info = holder.info;
    json gpus = json::array();
    for (const ProcessGpuUse& use : holder.gpus) {
        gpus.push_back({{"index", use.gpu_index}, {"memory_bytes", or_null(use.memory_bytes)}});
    }
    return json{
        {"pid", info.pid},
        {"start_time_ticks", info.start_time_ticks},
        {"user", info.user},
        {"uid", or_null(info.uid)},
        {"name", info.comm},
        {"exe", or_null(info.exe)},
        {"exe_deleted", info.exe_deleted},
        {"command", command_text(info)},
        {"container", container_json(info.container)},
        {"orphaned", holder.orphaned},
        {"gpus", gpus},
    };
}

json evidence_json(const std::vector<Evidence>& evidence) {
    json items = json::array();
    for (const Evidence& item : evidence) {
        items.push_back({{"signal", signal_name(item.signal)},
                         {"weight", item.weight},
                         {"detail", item.detail}});
    }
    return items;
}

}  // namespace

std::string command_text(const ProcessInfo& info) {
    std::string text = audit::shell_join(info.cmdline);
    if (text.size() <= kMaxCommandBytes) return text;
    std::size_t cut = kMaxCommandBytes - 3;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    text.resize(cut);
    return text + "...";
}

json assessment_json(const Assessment& assessment) {
    json out = process_json(assessment.holder);
    out["score"] = assessment.score;
    out["risk"] = risk_name(assessment.risk);
    out["evidence"] = evidence_json(assessment.evidence);
    out["notes"] = assessment.notes;
    out["allowed_by"] = assessment.allowed ? json{{"kind", assessment.allowed->kind},
                                                  {"entry", assessment.allowed->entry}}
                                           : json(nullptr);
    return out;
}

json report_json(const RogueReport& report, const ReportContext& context) {
    json findings = json::array();
    for (const Assessment& finding : report.findings) findings.push_back(assessment_json(finding));
    json allowed = json::array();
    for (const Assessment& item : report.allowed) allowed.push_back(assessment_json(item));
    return json{
        {"schema_version", kRogueSchemaVersion},
        {"host", context.host},
        {"timestamp", format_utc_timestamp(context.timestamp_unix_ms)},
        {"timestamp_unix_ms", context.timestamp_unix_ms},
        {"config_source", context.config_source},
        {"report_threshold", context.report_threshold},
        {"processes_examined", report.processes_examined},
        {"processes_not_fully_examined", report.processes_not_fully_examined},
        {"usage_history",
         {{"available", context.history_available},
          {"window_hours", context.window_hours},
          {"note", or_null(context.history_note)}}},
        {"findings", findings},
        {"allowed", allowed},
    };
}

json rogue_finding_record(const audit::Invocation& who, const Assessment& finding,
                          const std::string& config_source,
                          std::chrono::system_clock::time_point when) {
    json record = audit::audit_envelope("rogue_finding", who, when);
    record["process"] = process_json(finding.holder);
    record["score"] = finding.score;
    record["risk"] = risk_name(finding.risk);
    record["evidence"] = evidence_json(finding.evidence);
    record["notes"] = finding.notes;
    record["config_source"] = config_source;
    return record;
}

json rogue_config_installed_record(const audit::Invocation& who, const std::string& path,
                                   const std::string& from,
                                   std::chrono::system_clock::time_point when) {
    json record = audit::audit_envelope("rogue_config_installed", who, when);
    record["path"] = path;
    record["from"] = from;
    return record;
}

}  // namespace gpukill::detect

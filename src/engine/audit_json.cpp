#include "engine/audit_json.hpp"

#include <cmath>

#include "model/json_optional.hpp"
#include "model/snapshot_json.hpp"

namespace gpukill::engine {
namespace {

using Json = nlohmann::ordered_json;

// JSON numbers without binary noise (0.30000000000000004): GPU-hours to the
// millisecond-ish, percentages to a tenth.
double rounded(double value, double scale) {
    return std::round(value * scale) / scale;
}

Json hours_json(double hours) {
    return rounded(hours, 1e6);
}

Json percent_json(const std::optional<double>& percent) {
    return percent ? Json(rounded(*percent, 10)) : Json(nullptr);
}

Json seconds_json(const std::optional<std::int64_t>& ms) {
    return ms ? Json(static_cast<double>(*ms) / 1000.0) : Json(nullptr);
}

Json sampling_json(const history::SampleWeights& weights) {
    return Json{{"samples", weights.instants},
                {"sample_interval_seconds", seconds_json(weights.typical_interval_ms)},
                {"credit_cap_seconds", static_cast<double>(weights.cap_ms) / 1000.0}};
}

Json group_json(const history::GroupUsage& group, bool as_user) {
    Json out;
    out[as_user ? "user" : "name"] = group.key;
    if (as_user) out["uid"] = or_null(group.uid);
    if (!as_user) out["users"] = group.users;
    out["gpu_hours"] = hours_json(group.gpu_hours);
    out["peak_memory_bytes"] = or_null(group.peak_memory_bytes);
    out["processes"] = group.processes;
    return out;
}

}  // namespace

Json audit_header_json(const AuditScope& scope) {
    return Json{
        {"schema_version", 1},
        {"kind", scope.kind},
        {"source", scope.source},
        {"source_available", scope.source_available},
        {"window",
         {{"hours", scope.hours},
          {"since", format_utc_timestamp(scope.since_unix_ms)},
          {"since_unix_ms", scope.since_unix_ms},
          {"until", format_utc_timestamp(scope.until_unix_ms)},
          {"until_unix_ms", scope.until_unix_ms}}},
        {"filters", {{"user", or_null(scope.user)}, {"process", or_null(scope.process)}}},
    };
}

Json process_usage_json(const AuditScope& scope, const history::SampleWeights& weights,
                        const std::vector<history::ProcessUsage>& processes) {
    Json doc = audit_header_json(scope);
    doc.update(sampling_json(weights));
    Json list = Json::array();
    for (const history::ProcessUsage& p : processes) {
        list.push_back(Json{
            {"pid", p.pid},
            {"start_time_ticks", p.start_time_ticks},
            {"start_time", p.start_time_unix_ms ? Json(format_utc_timestamp(*p.start_time_unix_ms))
                                                : Json(nullptr)},
            {"uid", or_null(p.uid)},
            {"user", p.user},
            {"name", p.name},
            {"command", p.command},
            {"container", or_null(p.container)},
            {"gpus", p.gpus},
            {"first_seen", format_utc_timestamp(p.first_seen_unix_ms)},
            {"first_seen_unix_ms", p.first_seen_unix_ms},
            {"last_seen", format_utc_timestamp(p.last_seen_unix_ms)},
            {"last_seen_unix_ms", p.last_seen_unix_ms},
            {"samples", p.samples},
            {"peak_memory_bytes", or_null(p.peak_memory_bytes)},
            {"average_memory_bytes", or_null(p.average_memory_bytes)},
            {"average_gpu_utilization_percent", percent_json(p.average_gpu_utilization_percent)},
            {"average_process_utilization_percent",
             percent_json(p.average_process_utilization_percent)},
            {"gpu_hours", hours_json(p.gpu_hours)},
            {"orphaned", p.orphaned},
        });
    }
    doc["processes"] = std::move(list);
    return doc;
}

Json usage_summary_json(const AuditScope& scope, const history::SampleWeights& weights,
                        const history::UsageSummary& summary) {
    Json doc = audit_header_json(scope);
    doc.update(sampling_json(weights));
    doc["total_gpu_hours"] = hours_json(summary.total_gpu_hours);
    Json users = Json::array();
    for (const auto& group : summary.users) users.push_back(group_json(group, true));
    doc["users"] = std::move(users);
    Json names = Json::array();
    for (const auto& group : summary.processes) names.push_back(group_json(group, false));
    doc["processes"] = std::move(names);
    Json gpus = Json::array();
    for (const history::GpuUsage& g : summary.gpus) {
        gpus.push_back(Json{
            {"index", g.index},
            {"uuid", or_null(g.uuid)},
            {"name", or_null(g.name)},
            {"samples", g.samples},
            {"average_utilization_percent", percent_json(g.average_utilization_percent)},
            {"peak_utilization_percent", or_null(g.peak_utilization_percent)},
            {"average_memory_used_bytes", or_null(g.average_memory_used_bytes)},
            {"peak_memory_used_bytes", or_null(g.peak_memory_used_bytes)},
            {"memory_total_bytes", or_null(g.memory_total_bytes)},
            {"gpu_hours_in_use", hours_json(g.gpu_hours_in_use)},
        });
    }
    doc["gpus"] = std::move(gpus);
    Json hours = Json::array();
    for (const history::HourUsage& h : summary.by_hour) {
        hours.push_back(
            Json{{"hour", h.hour},
                 {"gpu_hours", hours_json(h.gpu_hours)},
                 {"average_utilization_percent", percent_json(h.average_utilization_percent)},
                 {"samples", h.samples}});
    }
    doc["by_hour"] = std::move(hours);
    return doc;
}

Json actions_json(const AuditScope& scope, const std::vector<Json>& records,
                  std::size_t skipped_lines) {
    Json doc = audit_header_json(scope);
    doc["skipped_lines"] = skipped_lines;
    doc["records"] = records;
    return doc;
}

}  // namespace gpukill::engine

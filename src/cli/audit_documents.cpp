#include "cli/audit_documents.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <vector>

#include "cli/audit_actions_view.hpp"
#include "cli/audit_history_view.hpp"
#include "cli/json_fields.hpp"
#include "cli/rogue_table.hpp"
#include "model/usage_summary.hpp"

namespace gpukill::cli {
namespace {

using Json = nlohmann::ordered_json;

AuditScope document_scope(const Json& doc) {
    AuditScope scope;
    scope.kind = json_fields::text(doc, "kind");
    scope.source = json_fields::text(doc, "source");
    // Absent means available: only "false" says there is nothing yet.
    const Json& available = json_fields::field(doc, "source_available");
    scope.source_available = !available.is_boolean() || available.get<bool>();
    const Json& window = json_fields::field(doc, "window");
    scope.hours = json_fields::number_or<double>(window, "hours", 24);
    scope.since_unix_ms = json_fields::number_or<std::int64_t>(window, "since_unix_ms", 0);
    scope.until_unix_ms = json_fields::number_or<std::int64_t>(window, "until_unix_ms", 0);
    const Json& filters = json_fields::field(doc, "filters");
    scope.user = json_fields::optional_text(filters, "user");
    scope.process = json_fields::optional_text(filters, "process");
    return scope;
}

history::SampleWeights document_weights(const Json& doc) {
    history::SampleWeights weights;
    weights.instants = json_fields::number_or<std::size_t>(doc, "samples", 0);
    if (auto interval = json_fields::number<double>(doc, "sample_interval_seconds")) {
        weights.typical_interval_ms = static_cast<std::int64_t>(*interval * 1000.0);
    }
    weights.cap_ms = static_cast<std::int64_t>(
        json_fields::number_or<double>(doc, "credit_cap_seconds", 0) * 1000.0);
    return weights;
}

std::vector<unsigned> document_indices(const Json& array) {
    std::vector<unsigned> indices;
    for (const Json& item : array) {
        if (item.is_number_unsigned()) indices.push_back(item.get<unsigned>());
    }
    return indices;
}

std::vector<history::ProcessUsage> document_processes(const Json& doc) {
    std::vector<history::ProcessUsage> processes;
    for (const Json& p : json_fields::list(doc, "processes")) {
        history::ProcessUsage usage;
        usage.pid = json_fields::number_or<pid_t>(p, "pid", 0);
        usage.start_time_ticks = json_fields::number_or<std::uint64_t>(p, "start_time_ticks", 0);
        usage.uid = json_fields::number<uid_t>(p, "uid");
        usage.user = json_fields::text(p, "user");
        usage.name = json_fields::text(p, "name");
        usage.command = json_fields::text(p, "command");
        usage.container = json_fields::optional_text(p, "container");
        usage.gpus = document_indices(json_fields::list(p, "gpus"));
        usage.first_seen_unix_ms = json_fields::number_or<std::int64_t>(p, "first_seen_unix_ms", 0);
        usage.last_seen_unix_ms = json_fields::number_or<std::int64_t>(p, "last_seen_unix_ms", 0);
        usage.samples = json_fields::number_or<std::size_t>(p, "samples", 0);
        usage.peak_memory_bytes = json_fields::number<std::uint64_t>(p, "peak_memory_bytes");
        usage.average_memory_bytes = json_fields::number<std::uint64_t>(p, "average_memory_bytes");
        usage.average_gpu_utilization_percent =
            json_fields::number<double>(p, "average_gpu_utilization_percent");
        usage.average_process_utilization_percent =
            json_fields::number<double>(p, "average_process_utilization_percent");
        usage.gpu_hours = json_fields::number_or<double>(p, "gpu_hours", 0);
        usage.orphaned = json_fields::flag(p, "orphaned");
        processes.push_back(std::move(usage));
    }
    return processes;
}

std::vector<history::GroupUsage> document_groups(const Json& doc, const char* key, bool by_user) {
    std::vector<history::GroupUsage> groups;
    for (const Json& g : json_fields::list(doc, key)) {
        history::GroupUsage group;
        group.key = json_fields::text(g, by_user ? "user" : "name");
        group.uid = json_fields::number<uid_t>(g, "uid");
        for (const Json& user : json_fields::list(g, "users")) {
            if (user.is_string()) group.users.push_back(user.get<std::string>());
        }
        group.gpu_hours = json_fields::number_or<double>(g, "gpu_hours", 0);
        group.peak_memory_bytes = json_fields::number<std::uint64_t>(g, "peak_memory_bytes");
        group.processes = json_fields::number_or<std::size_t>(g, "processes", 0);
        groups.push_back(std::move(group));
    }
    return groups;
}

history::UsageSummary document_summary(const Json& doc) {
    history::UsageSummary summary;
    summary.total_gpu_hours = json_fields::number_or<double>(doc, "total_gpu_hours", 0);
    summary.users = document_groups(doc, "users", true);
    summary.processes = document_groups(doc, "processes", false);
    for (const Json& g : json_fields::list(doc, "gpus")) {
        history::GpuUsage gpu;
        gpu.index = json_fields::number_or<unsigned>(g, "index", 0);
        gpu.uuid = json_fields::optional_text(g, "uuid");
        gpu.name = json_fields::optional_text(g, "name");
        gpu.samples = json_fields::number_or<std::size_t>(g, "samples", 0);
        gpu.average_utilization_percent =
            json_fields::number<double>(g, "average_utilization_percent");
        gpu.peak_utilization_percent = json_fields::number<unsigned>(g, "peak_utilization_percent");
        gpu.average_memory_used_bytes =
            json_fields::number<std::uint64_t>(g, "average_memory_used_bytes");
        gpu.peak_memory_used_bytes =
            json_fields::number<std::uint64_t>(g, "peak_memory_used_bytes");
        gpu.memory_total_bytes = json_fields::number<std::uint64_t>(g, "memory_total_bytes");
        gpu.gpu_hours_in_use = json_fields::number_or<double>(g, "gpu_hours_in_use", 0);
        summary.gpus.push_back(std::move(gpu));
    }
    for (const Json& h : json_fields::list(doc, "by_hour")) {
        summary.by_hour.push_back(
            {.hour = json_fields::number_or<int>(h, "hour", 0),
             .gpu_hours = json_fields::number_or<double>(h, "gpu_hours", 0),
             .average_utilization_percent =
                 json_fields::number<double>(h, "average_utilization_percent"),
             .samples = json_fields::number_or<std::size_t>(h, "samples", 0)});
    }
    return summary;
}

}  // namespace

std::optional<std::string> audit_document_text(const Json& doc, OutputWidth width) {
    if (!doc.is_object()) return std::nullopt;
    if (doc.contains("findings")) return render_rogue_table(doc, width);
    const AuditScope scope = document_scope(doc);
    if (scope.kind == "actions") {
        if (!scope.source_available) {
            return fmt::format(
                "No actions recorded at {} yet; gpukill kill and reset record theirs there.\n",
                scope.source);
        }
        engine::ActionsOutcome log{.scope = scope, .records = {}, .skipped_lines = 0};
        log.skipped_lines = json_fields::number_or<std::size_t>(doc, "skipped_lines", 0);
        for (const Json& record : json_fields::list(doc, "records")) {
            if (record.is_object()) log.records.push_back(record);
        }
        return actions_table(log, width);
    }
    if (scope.kind != "processes" && scope.kind != "summary") return std::nullopt;
    if (!scope.source_available) {
        return fmt::format("No usage history at {} yet: listings record it there.\n", scope.source);
    }
    if (scope.kind == "summary")
        return usage_summary_table(scope, document_weights(doc), document_summary(doc), width);
    return process_usage_table(scope, document_weights(doc), document_processes(doc), width);
}

}  // namespace gpukill::cli

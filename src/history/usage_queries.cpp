// Reading samples back from the usage history (usage_queries.hpp).
#include "history/usage_queries.hpp"

#include <string>

namespace gpukill::history {
namespace {

constexpr const char* kReading = "cannot read usage history";

template <class T>
std::optional<T> narrow(const std::optional<std::int64_t>& value) {
    if (!value) return std::nullopt;
    return static_cast<T>(*value);
}

}  // namespace

Result<std::vector<GpuSample>> query_gpu_samples(sqlite::Database& db, const SampleQuery& query) {
    std::string sql =
        "SELECT s.time_unix_ms, s.gpu_index, g.uuid, g.name, g.pci_bus_id, "
        "s.memory_used_bytes, g.memory_total_bytes, s.utilization_percent, "
        "s.temperature_celsius, s.power_watts, s.process_count "
        "FROM gpu_samples s JOIN gpus g ON g.id = s.gpu_id "
        "WHERE s.time_unix_ms >= ?1 AND s.time_unix_ms < ?2";
    if (query.gpu_index) sql += " AND s.gpu_index = ?3";
    sql += " ORDER BY s.time_unix_ms, s.gpu_index";
    auto statement = db.prepare(sql, kReading);
    if (!statement) return std::unexpected(statement.error());
    statement->bind(1, query.since_unix_ms);
    statement->bind(2, query.until_unix_ms);
    if (query.gpu_index) statement->bind(3, static_cast<std::int64_t>(*query.gpu_index));
    std::vector<GpuSample> samples;
    while (true) {
        auto row = statement->step();
        if (!row) return std::unexpected(row.error());
        if (!*row) break;
        GpuSample& s = samples.emplace_back();
        s.time_unix_ms = statement->column_int(0);
        s.gpu_index = static_cast<unsigned>(statement->column_int(1));
        s.gpu_uuid = statement->column_optional_text(2);
        s.gpu_name = statement->column_optional_text(3);
        s.pci_bus_id = statement->column_optional_text(4);
        s.memory_used_bytes = narrow<std::uint64_t>(statement->column_optional_int(5));
        s.memory_total_bytes = narrow<std::uint64_t>(statement->column_optional_int(6));
        s.utilization_percent = narrow<unsigned>(statement->column_optional_int(7));
        s.temperature_celsius = narrow<int>(statement->column_optional_int(8));
        s.power_watts = statement->column_optional_double(9);
        s.process_count = static_cast<unsigned>(statement->column_int(10));
    }
    return samples;
}

Result<std::vector<ProcessSample>> query_process_samples(sqlite::Database& db,
                                                         const SampleQuery& query) {
    std::string sql =
        "SELECT s.time_unix_ms, s.gpu_index, g.uuid, p.pid, p.start_time_ticks, p.uid, p.user, "
        "p.name, p.command, p.container, s.memory_bytes, s.utilization_percent, "
        "gs.utilization_percent, gs.process_count, s.orphaned, p.start_time_unix_ms "
        "FROM process_samples s JOIN processes p ON p.id = s.process_id "
        "LEFT JOIN gpu_samples gs ON gs.time_unix_ms = s.time_unix_ms AND "
        "gs.gpu_index = s.gpu_index "
        "LEFT JOIN gpus g ON g.id = gs.gpu_id "
        "WHERE s.time_unix_ms >= ?1 AND s.time_unix_ms < ?2";
    if (query.uid) sql += " AND p.uid = ?3";
    if (query.user) sql += " AND p.user = ?4";
    if (query.pid) sql += " AND p.pid = ?5";
    if (query.start_time_ticks) sql += " AND p.start_time_ticks = ?6";
    if (query.gpu_index) sql += " AND s.gpu_index = ?7";
    sql += " ORDER BY s.time_unix_ms, s.gpu_index, p.pid, p.id";
    auto statement = db.prepare(sql, kReading);
    if (!statement) return std::unexpected(statement.error());
    statement->bind(1, query.since_unix_ms);
    statement->bind(2, query.until_unix_ms);
    if (query.uid) statement->bind(3, static_cast<std::int64_t>(*query.uid));
    if (query.user) statement->bind(4, std::string_view(*query.user));
    if (query.pid) statement->bind(5, static_cast<std::int64_t>(*query.pid));
    if (query.start_time_ticks) {
        statement->bind(6, static_cast<std::int64_t>(*query.start_time_ticks));
    }
    if (query.gpu_index) statement->bind(7, static_cast<std::int64_t>(*query.gpu_index));
    std::vector<ProcessSample> samples;
    while (true) {
        auto row = statement->step();
        if (!row) return std::unexpected(row.error());
        if (!*row) break;
        ProcessSample& s = samples.emplace_back();
        s.time_unix_ms = statement->column_int(0);
        s.gpu_index = static_cast<unsigned>(statement->column_int(1));
        s.gpu_uuid = statement->column_optional_text(2);
        s.pid = static_cast<pid_t>(statement->column_int(3));
        s.start_time_ticks = static_cast<std::uint64_t>(statement->column_int(4));
        s.uid = narrow<uid_t>(statement->column_optional_int(5));
        s.user = statement->column_text(6);
        s.name = statement->column_text(7);
        s.command = statement->column_text(8);
        s.container = statement->column_optional_text(9);
        s.memory_bytes = narrow<std::uint64_t>(statement->column_optional_int(10));
        s.process_utilization_percent = narrow<unsigned>(statement->column_optional_int(11));
        s.gpu_utilization_percent = narrow<unsigned>(statement->column_optional_int(12));
        s.gpu_process_count = static_cast<unsigned>(statement->column_optional_int(13).value_or(0));
        s.orphaned = statement->column_int(14) != 0;
        s.start_time_unix_ms = statement->column_optional_int(15);
    }
    return samples;
}

}  // namespace gpukill::history

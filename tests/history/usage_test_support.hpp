// Builders for usage-history tests: snapshots with chosen times, GPUs and processes
// (the store takes its clock from snapshot.timestamp_unix_ms), and a raw SQLite
// connection to look at what the store wrote.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/snapshot.hpp"

namespace gpukill::usage_test {

inline constexpr std::int64_t kBase = 1'764'460'800'000;  // 2025-11-30 00:00:00 UTC
inline constexpr std::int64_t kSecond = 1000;
inline constexpr std::int64_t kMinute = 60 * kSecond;
inline constexpr std::int64_t kHour = 60 * kMinute;
inline constexpr std::int64_t kDay = 24 * kHour;
inline constexpr std::uint64_t kGiB = 1ULL << 30;

inline Gpu make_gpu(unsigned index, std::optional<unsigned> utilization = 50,
                    std::uint64_t used = 2 * kGiB) {
    Gpu gpu;
    gpu.index = index;
    gpu.reading.name = "Simulated H100";
    gpu.reading.uuid = "GPU-0000000" + std::to_string(index);
    gpu.reading.pci_bus_id = "0000:0" + std::to_string(index) + ":00.0";
    gpu.reading.memory_total_bytes = 80 * kGiB;
    gpu.reading.memory_used_bytes = used;
    gpu.reading.utilization_percent = utilization;
    gpu.reading.temperature_celsius = 40;
    gpu.reading.power_watts = 123.5;
    return gpu;
}

struct ProcessSpec {
    pid_t pid = 4242;
    std::uint64_t start_ticks = 1000;
    uid_t uid = 1000;
    std::string user = "alice";
    std::string name = "python";
    std::vector<std::string> cmdline = {"python", "train.py"};
    std::vector<std::pair<unsigned, std::optional<std::uint64_t>>> gpus = {{0, 2 * kGiB}};
    bool orphaned = false;
    bool info_complete = true;
    std::optional<std::string> container;
};

inline SnapshotProcess make_process(const ProcessSpec& spec) {
    SnapshotProcess process;
    process.info.pid = spec.pid;
    process.info.start_time_ticks = spec.start_ticks;
    process.info.uid = spec.uid;
    process.info.user = spec.user;
    process.info.comm = spec.name;
    process.info.cmdline = spec.cmdline;
    if (spec.container) process.info.container = ContainerInfo{"docker", *spec.container, {}, {}};
    process.info_complete = spec.info_complete;
    process.orphaned = spec.orphaned;
    for (const auto& [index, memory] : spec.gpus) {
        ProcessGpuUse use;
        use.gpu_index = index;
        use.memory_bytes = memory;
        process.gpus.push_back(use);
    }
    return process;
}

inline Snapshot make_snapshot(std::int64_t time_ms, std::vector<Gpu> gpus,
                              const std::vector<ProcessSpec>& processes) {
    Snapshot snapshot;
    snapshot.host = "node7";
    snapshot.timestamp_unix_ms = time_ms;
    snapshot.boot_time_unix_s = kBase / 1000 - 3600;
    snapshot.clock_ticks_per_second = 100;
    for (const ProcessSpec& spec : processes) {
        snapshot.processes.push_back(make_process(spec));
        for (const auto& [index, memory] : spec.gpus) {
            for (Gpu& gpu : gpus) {
                if (gpu.index == index) ++gpu.process_count;
            }
        }
    }
    snapshot.gpus = std::move(gpus);
    return snapshot;
}

// A separate connection to the store's file, for checks the store does not expose.
class RawDb {
  public:
    explicit RawDb(const std::string& path,
                   int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) {
        if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
            throw std::runtime_error("cannot open " + path);
        }
        sqlite3_busy_timeout(db_, 5000);
    }
    ~RawDb() { sqlite3_close_v2(db_); }
    RawDb(const RawDb&) = delete;
    RawDb& operator=(const RawDb&) = delete;

    std::int64_t integer(const std::string& sql) {
        sqlite3_stmt* statement = nullptr;
        if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
            throw std::runtime_error("cannot prepare " + sql + ": " + sqlite3_errmsg(db_));
        }
        std::int64_t value = -1;
        if (sqlite3_step(statement) == SQLITE_ROW) value = sqlite3_column_int64(statement, 0);
        sqlite3_finalize(statement);
        return value;
    }
    std::string text(const std::string& sql) {
        sqlite3_stmt* statement = nullptr;
        if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
            throw std::runtime_error("cannot prepare " + sql + ": " + sqlite3_errmsg(db_));
        }
        std::string value;
        if (sqlite3_step(statement) == SQLITE_ROW) {
            const auto* raw = sqlite3_column_text(statement, 0);
            if (raw != nullptr) value = reinterpret_cast<const char*>(raw);
        }
        sqlite3_finalize(statement);
        return value;
    }
    void exec(const std::string& sql) {
        if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
            throw std::runtime_error("cannot run " + sql + ": " + sqlite3_errmsg(db_));
        }
    }

  private:
    sqlite3* db_ = nullptr;
};

}  // namespace gpukill::usage_test

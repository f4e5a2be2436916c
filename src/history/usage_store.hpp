// The usage history: an SQLite database, STATE_DIR/usage.sqlite3, holding samples of
// every GPU and every process on a GPU, written by `list`, `watch` (and later the agent
// and guard). Retention is enforced on write so the file stays bounded.
//
// Contract for writers: recording never blocks a caller for long and never breaks it:
// a locked database (another writer), a full disk, a read-only directory or a corrupt
// file is an error value the caller may print as one warning line and ignore.
// Contract for readers: samples come back in time order; the window is [since, until).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/result.hpp"
#include "model/snapshot.hpp"

namespace gpukill::history {

inline constexpr const char* kUsageStoreFileName = "usage.sqlite3";
inline constexpr double kDefaultRetentionDays = 30;

struct GpuSample {
    std::int64_t time_unix_ms = 0;
    unsigned gpu_index = 0;
    std::optional<std::string> gpu_uuid;
    std::optional<std::string> gpu_name;
    std::optional<std::string> pci_bus_id;
    std::optional<std::uint64_t> memory_used_bytes;
    std::optional<std::uint64_t> memory_total_bytes;
    std::optional<unsigned> utilization_percent;
    std::optional<int> temperature_celsius;
    std::optional<double> power_watts;
    unsigned process_count = 0;
};

// One process on one GPU at one moment. A process on two GPUs gives two samples.
struct ProcessSample {
    std::int64_t time_unix_ms = 0;
    unsigned gpu_index = 0;
    std::optional<std::string> gpu_uuid;
    pid_t pid = 0;
    std::uint64_t start_time_ticks = 0;  // with pid: the process's identity
    std::optional<uid_t> uid;
    std::string user;
    std::string name;     // comm
    std::string command;  // command line joined with spaces (shell-quoted where needed)
    std::optional<std::string> container;  // container id or pod UID, when in one
    std::optional<std::uint64_t> memory_bytes;
    // The process's own share where the driver reports it (DRM fdinfo), else empty.
    std::optional<unsigned> process_utilization_percent;
    // The whole GPU's utilisation at that moment.
    std::optional<unsigned> gpu_utilization_percent;
    unsigned gpu_process_count = 0;  // processes on that GPU at that moment
    bool orphaned = false;
    // When the process started, from start_time_ticks and the host's boot time; empty
    // when the boot time was unknown.
    std::optional<std::int64_t> start_time_unix_ms;
};

struct SampleQuery {
    std::int64_t since_unix_ms = 0;
    std::int64_t until_unix_ms = INT64_MAX;
    std::optional<uid_t> uid;         // exact
    std::optional<std::string> user;  // exact name
    std::optional<pid_t> pid;         // with start_time_ticks: one process
    std::optional<std::uint64_t> start_time_ticks;
    std::optional<unsigned> gpu_index;
};

struct UsageStoreOptions {
    double retention_days = kDefaultRetentionDays;
    // How long a writer waits for another writer's lock before giving up (sampling
    // must not stall `list`); readers wait the same.
    int busy_timeout_ms = 200;
    // record() skips a snapshot taken less than this after (or before) the newest one
    // stored, by any writer, so a fast `watch` or several `list` runs in a row do not
    // grow the file with near-duplicate samples. 0 keeps every snapshot (one per
    // distinct millisecond). history_settings.hpp gives the configured value.
    std::int64_t min_interval_ms = 0;
};

class UsageStore {
  public:
    // Opens (creating STATE_DIR 0750 and the file 0640 when missing) and checks the
    // schema. A file that is not an SQLite database, or one with a foreign or newer
    // schema, is an error naming the path; it is never overwritten.
    static Result<std::unique_ptr<UsageStore>> open(const std::string& state_dir,
                                                    UsageStoreOptions options = {});
    // Opens an existing store read-only; a missing file is an error ("no usage history
    // yet: run gpukill list or watch to record samples").
    static Result<std::unique_ptr<UsageStore>> open_read_only(const std::string& state_dir,
                                                              UsageStoreOptions options = {});
    virtual ~UsageStore() = default;

    // One snapshot: a GpuSample per GPU and a ProcessSample per process-GPU pair of a
    // process whose details were read (info_complete). One transaction. Deletes samples
    // older than the retention (at most once a minute per store, to keep writes cheap).
    virtual Result<void> record(const Snapshot& snapshot) = 0;
    virtual Result<std::vector<GpuSample>> gpu_samples(const SampleQuery& query) = 0;
    virtual Result<std::vector<ProcessSample>> process_samples(const SampleQuery& query) = 0;
    virtual Result<void> enforce_retention(std::int64_t now_unix_ms) = 0;
    virtual const std::string& path() const = 0;
};

}  // namespace gpukill::history

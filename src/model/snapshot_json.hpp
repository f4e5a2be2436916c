// The `--json` document for a snapshot. Field names are snake_case with units in
// the name; unknown is null; the schema is in docs/JSON.md and changes only by
// adding fields or bumping kSnapshotSchemaVersion.
#pragma once

#include <nlohmann/json.hpp>

#include "model/snapshot.hpp"

namespace gpukill {

inline constexpr int kSnapshotSchemaVersion = 1;

nlohmann::ordered_json to_json(const Snapshot& snapshot);

// "2026-11-29T23:50:01.123Z"
std::string format_utc_timestamp(std::int64_t unix_ms);

// Wall-clock start of a process in ms since the epoch, when boot time is known.
std::optional<std::int64_t> process_start_unix_ms(const Snapshot& snapshot,
                                                  const ProcessInfo& info);

}  // namespace gpukill

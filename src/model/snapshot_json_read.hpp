// A snapshot read back from a `gpukill list --json` document (docs/JSON.md, schema
// version 1), so a recorded moment can be judged again: `gpukill guard test
// --snapshot FILE`. Pure: text in, Snapshot out.
//
// What the document does not carry is rebuilt or left empty: the boot time from a
// process's start_time and start_time_ticks (at Linux's 100 ticks a second), the device
// root from the device file paths, the drivers' process lists from the processes seen
// by the driver. to_json() of the result gives the document back field for field.
// Fields added by later versions of schema 1 are ignored; a document of another
// schema version, or one whose fields have the wrong types, is an error.
#pragma once

#include <cstddef>
#include <string_view>

#include "model/result.hpp"
#include "model/snapshot.hpp"

namespace gpukill {

// A document over this size, or nested deeper than kMaxJsonDepth, is refused unread.
inline constexpr std::size_t kMaxSnapshotJsonBytes = 256u << 20;

Result<Snapshot> snapshot_from_json(std::string_view text);

}  // namespace gpukill

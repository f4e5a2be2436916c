// The `list` table: one row per GPU, and with details one row per process-GPU
// pair. Marks what a person needs to see at once why a GPU is "full but empty":
// processes seen only by their device file, and memory no live process accounts for.
#pragma once

#include <string>

#include "cli/text_wrap.hpp"

#include "model/snapshot.hpp"

namespace gpukill::cli {

struct TableOptions {
    bool details = false;
    OutputWidth width;  // cut the COMMAND column and wrap notes to it
};

std::string render_snapshot_table(const Snapshot& snapshot, const TableOptions& options);

// Unattributed memory below this is driver bookkeeping, not worth a note line;
// JSON always carries the exact figure.
inline constexpr std::uint64_t kUnattributedNoteThresholdBytes = 32ULL << 20;

}  // namespace gpukill::cli

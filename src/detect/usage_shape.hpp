// The usage-shape signal (mining_usage_shape) from the usage history of one process:
// a GPU held at >= min_utilization_percent for at least min_minutes of consecutive
// samples, with memory no larger than max_memory_bytes and flat (coefficient of
// variation <= max_memory_variation). Training and inference look different: large
// working sets that vary with batches, caches and evaluation. Pure.
//
// Which utilisation: the process's own share when the driver reports one (DRM
// fdinfo); otherwise the whole GPU's, but only in samples where the process was the
// GPU's only process (a shared GPU's load cannot be attributed). Samples with neither
// break a stretch. Samples further apart than max_sample_gap_seconds break it too.
// Each GPU is judged separately; the longest stretch decides.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "detect/evidence.hpp"
#include "detect/rogue_config.hpp"
#include "history/usage_store.hpp"

namespace gpukill::detect {

struct ShapeVerdict {
    bool judged = false;               // enough history to say either way
    std::optional<Evidence> evidence;  // mining-like
    std::string note;                  // one line: what was seen, or why not judged
    // The longest busy stretch, in minutes, when it lasted min_minutes, whatever the
    // memory: "sustained full use" for busy_pool_connection.
    std::optional<double> busy_minutes;
};

ShapeVerdict judge_usage_shape(const std::vector<history::ProcessSample>& samples,
                               const RogueConfig& config);

}  // namespace gpukill::detect

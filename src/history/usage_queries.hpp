// The usage history's read side: samples in a window, time-ordered, joined back with
// the GPU and process rows they reference. Internal to src/history (UsageStore's
// gpu_samples and process_samples).
#pragma once

#include <vector>

#include "history/sqlite_handle.hpp"
#include "history/usage_store.hpp"

namespace gpukill::history {

// Filters: the window and gpu_index; the process filters do not apply to GPU samples.
Result<std::vector<GpuSample>> query_gpu_samples(sqlite::Database& db, const SampleQuery& query);
// Every filter of SampleQuery; ordered by time, GPU, PID.
Result<std::vector<ProcessSample>> query_process_samples(sqlite::Database& db,
                                                         const SampleQuery& query);

}  // namespace gpukill::history

// Whether and how `list`, `watch` (and later the agent) record usage history:
// CONFIG_DIR/history.yaml, then environment variables, which win.
//
//   enabled: true               # false: record nothing (GPUKILL_NO_HISTORY=1)
//   retention_days: 30          # samples older than this are deleted
//   (GPUKILL_HISTORY_RETENTION_DAYS) min_interval_seconds: 10    # at most one sample per this many
//   seconds
//                               # (GPUKILL_HISTORY_MIN_INTERVAL_SECONDS; 0: every snapshot)
//
// Strict, all-or-nothing: an unknown or repeated key, a wrong type or a value out of
// range is one error line "FILE:LINE:COLUMN: what" (or naming the variable), and
// nothing of it is applied. Querying the history (`gpukill audit`) needs none of this.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "history/usage_store.hpp"
#include "model/result.hpp"

namespace gpukill::history {

inline constexpr const char* kHistorySettingsFileName = "history.yaml";
inline constexpr double kDefaultMinIntervalSeconds = 10;
inline constexpr double kMaxRetentionDays = 36'500;       // a century: surely a typo beyond
inline constexpr double kMaxMinIntervalSeconds = 86'400;  // a day

struct HistorySettings {
    bool enabled = true;
    double retention_days = kDefaultRetentionDays;
    double min_interval_seconds = kDefaultMinIntervalSeconds;

    UsageStoreOptions store_options() const;
};

// Looks up an environment variable; empty when unset.
using EnvironmentLookup = std::function<std::optional<std::string>(const char* name)>;

// The file's text over the defaults. `source` names the file in errors.
Result<HistorySettings> parse_history_settings(std::string_view text, std::string_view source);

// GPUKILL_NO_HISTORY (1/true/yes: disabled; 0/false/no or empty: no effect),
// GPUKILL_HISTORY_RETENTION_DAYS, GPUKILL_HISTORY_MIN_INTERVAL_SECONDS over `settings`.
Result<HistorySettings> apply_history_environment(HistorySettings settings,
                                                  const EnvironmentLookup& env);

// CONFIG_DIR/history.yaml (absent: the defaults; unreadable: an error), then the
// environment.
Result<HistorySettings> load_history_settings(const std::string& config_dir,
                                              const EnvironmentLookup& env);

}  // namespace gpukill::history

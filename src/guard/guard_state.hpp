// What `guard run` must not forget across restarts: which process was warned for
// which rule, and when, so a grace period keeps running instead of starting over.
// Kept in STATE_DIR/guard-state.json, replaced atomically after each evaluation.
#pragma once

#include <sys/types.h>

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "model/result.hpp"

namespace gpukill::guard {

inline constexpr const char* kStateFileName = "guard-state.json";
inline constexpr int kStateSchemaVersion = 1;

struct WarningKey {
    pid_t pid = 0;
    std::uint64_t start_time_ticks = 0;  // with pid: the process's identity
    std::string rule_id;
    friend auto operator<=>(const WarningKey&, const WarningKey&) = default;
};

struct WarningRecord {
    std::int64_t first_warned_unix_ms = 0;
    // Warned in dry-run: recorded to follow the grace period in the log, but nobody was
    // told, so enforcement starts the warning over rather than act on it.
    bool dry_run = false;
    friend bool operator==(const WarningRecord&, const WarningRecord&) = default;
};

struct GuardState {
    // Start times count from boot: after a reboot the same PID and start time may be a
    // different process, so a state from another boot is forgotten.
    std::optional<std::int64_t> boot_time_unix_s;
    std::map<WarningKey, WarningRecord> warnings;
    friend bool operator==(const GuardState&, const GuardState&) = default;
};

nlohmann::ordered_json state_to_json(const GuardState& state);
// Strict: a document that is not this schema is an error naming `source`.
Result<GuardState> parse_state(std::string_view text, std::string_view source);

// STATE_DIR/guard-state.json; no file is an empty state.
Result<GuardState> load_state(const std::string& state_dir);
// Creates STATE_DIR (0750) when missing; the file is 0640 and replaced atomically.
Result<void> save_state(const std::string& state_dir, const GuardState& state);

}  // namespace gpukill::guard

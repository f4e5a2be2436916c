// Whether a vendor backend loaded, and why not: shown by `list` and `doctor`.
#pragma once

#include <optional>
#include <string>

namespace gpukill {

struct BackendStatus {
    std::string name;  // "nvml", "drm"
    bool loaded = false;
    std::string detail;  // what was loaded, or why not
    std::optional<std::string> driver_version;
    std::optional<std::string> advice;  // what a user should do about a gap
    // The user named this backend's library explicitly (e.g. --nvml-library):
    // failing to load it is then an error, not a quiet absence.
    bool explicitly_requested = false;
};

}  // namespace gpukill

// Reading sysfs attributes and directories for the DRM backend. A file a driver does not
// provide is an unknown value, not a failure; only files that exist but cannot be read
// are errors (which the backend shows as a GPU's `problems`).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/result.hpp"

namespace gpukill::drm {

// The attribute's text; empty optional when the driver does not offer it: the file is
// absent (ENOENT, ENOTDIR) or its show function says it has no value here (EOPNOTSUPP,
// ENODATA, as amdgpu and hwmon do for sensors a part lacks). Other failures (EACCES,
// EIO, ...) are errors.
Result<std::optional<std::string>> read_attribute(const std::string& path);

// The target of a symbolic link; empty optional when there is no such link.
Result<std::optional<std::string>> read_optional_link(const std::string& path);

// The names in a directory (without "." and ".."), sorted; empty optional when the
// directory does not exist.
Result<std::optional<std::vector<std::string>>> list_directory(const std::string& path);

// Whether a path exists (any kind of file; links followed).
bool path_exists(const std::string& path);

}  // namespace gpukill::drm

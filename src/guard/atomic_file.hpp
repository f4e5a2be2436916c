// Replacing a file so that readers and a crash see the old content or the new, never
// half of either: write a temporary file in the same directory, fsync it, rename it
// over the old one, fsync the directory.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

#include "model/result.hpp"

namespace gpukill::guard {

// `mode` for a new file; an existing file keeps its mode (and, when running as root,
// its owner and group). Errors name the path and the OS reason.
Result<void> replace_file_atomically(const std::string& path, std::string_view content,
                                     mode_t mode = 0644);

}  // namespace gpukill::guard

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

// The same, for a file that must not exist yet: published with link(2), which fails
// when `path` exists, so a file another writer created meanwhile is never replaced.
// An existing file is an error of category conflict.
Result<void> create_file_atomically(const std::string& path, std::string_view content,
                                    mode_t mode = 0644);

}  // namespace gpukill::guard

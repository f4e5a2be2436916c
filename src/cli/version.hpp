// What `gpukill --version` prints: "gpukill 0.1.0 (commit 0123456789ab)". The commit
// is written at build time (cmake/SourceCommit.cmake); "-modified" marks a build from a
// tree with uncommitted changes, "unknown" one from outside a git checkout.
#pragma once

#include <string>

namespace gpukill::cli {

std::string version_line();

}  // namespace gpukill::cli

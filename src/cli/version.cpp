#include "cli/version.hpp"

#include "source_commit.hpp"

namespace gpukill::cli {

std::string version_line() {
    return std::string("gpukill ") + GPUKILL_VERSION + " (commit " + GPUKILL_SOURCE_COMMIT + ")";
}

}  // namespace gpukill::cli

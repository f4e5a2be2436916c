#pragma once
// Creating and removing the files of a simulated host (the layout is in state/root.hpp).

#include "state/config.hpp"
#include "state/error.hpp"
#include "state/root.hpp"

namespace gpusim {

// Creates DIR/dev (device nodes as regular files: we cannot mknod) and DIR/gpusim. The
// configuration is written last, so a half-created root is never taken for a real one.
Result<void> create_host(const Root& root, const SimConfig& config);

// Removes what create_host made (and nothing else under DIR).
Result<void> remove_host(const Root& root);

}  // namespace gpusim

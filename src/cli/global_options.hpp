// Options every command shares: where the host's trees, the NVML library, the
// state and the configuration live. Each has a flag and a GPUKILL_* variable;
// the flag wins.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "cli/text_wrap.hpp"
#include "model/host_roots.hpp"
#include "model/result.hpp"

namespace gpukill::cli {

struct GlobalOptions {
    HostRoots roots;
    std::optional<std::string> nvml_library;
    std::string state_dir;
    std::string config_dir;
    // How wide a person's terminal is; none for a pipe, a file or --wide.
    OutputWidth output_width;
};

// What the user gave on the command line; empty optional means "not given".
struct GlobalFlags {
    std::optional<std::string> procfs, sysfs, devfs, rundir, nvml_library, state_dir, config_dir;
};

using Environment = std::function<std::optional<std::string>(const char* name)>;

// The process environment (getenv).
Environment process_environment();

// Flags, then GPUKILL_* variables, then defaults: /var/lib/gpukill and /etc/gpukill
// for root, the XDG state and config directories otherwise. A flag or variable given
// with an empty value is an error ("--state-dir is empty"), never the default: a
// script whose variable came out empty must not act on the real state.
Result<GlobalOptions> resolve_global_options(const GlobalFlags& flags, const Environment& env,
                                             bool running_as_root);

}  // namespace gpukill::cli

// gpukill's two programs (src/cli/interface_commands.hpp): `gpukill` in BINDIR and
// `gpukill-interfaces` in LIBEXECDIR/gpukill, either of which may be the one running.
// Whatever is true of "this program" is true of both: neither is a miner to the other's
// rogue scan (both carry every miner signature in their rule lists), the installed
// examples are beside `gpukill`, and `gpukill` execs the other.
#pragma once

#include <filesystem>
#include <optional>

namespace gpukill {

struct OwnPrograms {
    std::filesystem::path gpukill;     // BINDIR/gpukill (or the copy that is running)
    std::filesystem::path interfaces;  // LIBEXECDIR/gpukill/gpukill-interfaces
};

// From this process's own file (/proc/self/exe) and the layout fixed at build time:
// GPUKILL_INTERFACES_RELATIVE (BINDIR to LIBEXECDIR/gpukill) and GPUKILL_INTERFACES_BACK
// (the way back). Never from PATH or the environment. Empty when /proc/self/exe cannot be
// read.
std::optional<OwnPrograms> own_programs();

}  // namespace gpukill

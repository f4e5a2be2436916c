// gpusim env --root DIR: the environment that points gpukill at the simulated host.

#include <fmt/core.h>

#include "cli/commands.hpp"
#include "cli/drm_layout.hpp"
#include "state/root.hpp"

namespace gpusim {

namespace {

namespace fs = std::filesystem;

// POSIX shell single quotes; a quote inside becomes '\''.
std::string shell_quote(std::string_view text) {
    std::string quoted = "'";
    for (char c : text) {
        if (c == '\'')
            quoted += "'\\''";
        else
            quoted += c;
    }
    return quoted + "'";
}

// The simulated driver installed next to this gpusim: BIN/../lib[/legacy]/libnvidia-ml.so.1.
Result<fs::path> library_beside_executable(bool legacy) {
    std::error_code error;
    const fs::path self = fs::read_symlink("/proc/self/exe", error);
    if (error) return fail(kExitFailure, "cannot resolve /proc/self/exe: " + error.message());
    fs::path lib = self.parent_path().parent_path() / "lib";
    if (legacy) lib /= "legacy";
    return (lib / "libnvidia-ml.so.1").lexically_normal();
}

}  // namespace

int cmd_env(const fs::path& dir) {
    const Root root = root_at(dir);
    auto config = load_config(root);
    if (!config) return report(config.error());
    auto library = library_beside_executable(config->driver.legacy);
    if (!library) return report(library.error());

    fmt::print("export GPUKILL_NVML_LIBRARY={}\n", shell_quote(library->string()));
    fmt::print("export GPUKILL_DEVFS={}\n", shell_quote(root.dev_dir().string()));
    fmt::print("export GPUSIM_ROOT={}\n", shell_quote(root.dir.string()));
    // Always: a simulated host must never show the real host's /sys/class/drm GPUs.
    fmt::print("export GPUKILL_SYSFS={}\n", shell_quote(sys_dir(root).string()));
    fmt::print("export GPUKILL_NVIDIA_SMI={}\n", shell_quote(root.nvidia_smi_link().string()));
    return kExitOk;
}

}  // namespace gpusim

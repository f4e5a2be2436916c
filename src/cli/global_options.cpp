#include "cli/global_options.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <string_view>

namespace gpukill::cli {
namespace {

std::string first_of(const std::string& flag, const Environment& env, const char* variable,
                     const std::string& fallback) {
    if (!flag.empty()) return flag;
    if (auto value = env(variable); value && !value->empty()) return *value;
    return fallback;
}

std::string xdg_dir(const Environment& env, const char* variable, const char* home_suffix) {
    if (auto value = env(variable); value && !value->empty()) return *value + "/gpukill";
    return env("HOME").value_or("") + home_suffix + "/gpukill";
}

}  // namespace

Environment process_environment() {
    return [](const char* name) -> std::optional<std::string> {
        const char* value = std::getenv(name);
        if (value != nullptr) return std::string(value);
        // No HOME (cron, some services): the account's own home, never a shared
        // directory such as /tmp where another user could plant the state directory.
        if (std::string_view(name) == "HOME") {
            if (passwd* account = getpwuid(getuid()); account != nullptr && account->pw_dir) {
                return std::string(account->pw_dir);
            }
        }
        return std::nullopt;
    };
}

GlobalOptions resolve_global_options(const GlobalFlags& flags, const Environment& env,
                                     bool running_as_root) {
    GlobalOptions options;
    options.roots.procfs = first_of(flags.procfs, env, "GPUKILL_PROCFS", "/proc");
    options.roots.sysfs = first_of(flags.sysfs, env, "GPUKILL_SYSFS", "/sys");
    options.roots.devfs = first_of(flags.devfs, env, "GPUKILL_DEVFS", "/dev");
    std::string nvml = first_of(flags.nvml_library, env, "GPUKILL_NVML_LIBRARY", "");
    if (!nvml.empty()) options.nvml_library = nvml;
    options.state_dir = first_of(
        flags.state_dir, env, "GPUKILL_STATE_DIR",
        running_as_root ? "/var/lib/gpukill" : xdg_dir(env, "XDG_STATE_HOME", "/.local/state"));
    options.config_dir =
        first_of(flags.config_dir, env, "GPUKILL_CONFIG_DIR",
                 running_as_root ? "/etc/gpukill" : xdg_dir(env, "XDG_CONFIG_HOME", "/.config"));
    return options;
}

BackendConfig backend_config(const GlobalOptions& options) {
    return BackendConfig{.roots = options.roots, .nvml_library = options.nvml_library};
}

}  // namespace gpukill::cli

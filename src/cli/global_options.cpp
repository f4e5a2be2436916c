#include "cli/global_options.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <string_view>

namespace gpukill::cli {
namespace {

// The first of the flag and the variable that is given; an error when it is empty.
Result<std::optional<std::string>> given(const std::optional<std::string>& flag,
                                         const char* flag_name, const Environment& env,
                                         const char* variable) {
    if (flag) {
        if (flag->empty()) return fail(std::string(flag_name) + " is empty: give a path");
        return flag;
    }
    auto value = env(variable);
    if (value && value->empty()) {
        return fail(std::string(variable) + " is set but empty: unset it or give a path");
    }
    return value;
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

Result<GlobalOptions> resolve_global_options(const GlobalFlags& flags, const Environment& env,
                                             bool running_as_root) {
    GlobalOptions options;
    struct Setting {
        const std::optional<std::string>& flag;
        const char* flag_name;
        const char* variable;
        std::function<void(std::optional<std::string>)> take;
    };
    const Setting settings[] = {
        {flags.procfs, "--procfs", "GPUKILL_PROCFS",
         [&](auto v) { options.roots.procfs = v.value_or("/proc"); }},
        {flags.sysfs, "--sysfs", "GPUKILL_SYSFS",
         [&](auto v) { options.roots.sysfs = v.value_or("/sys"); }},
        {flags.devfs, "--devfs", "GPUKILL_DEVFS",
         [&](auto v) { options.roots.devfs = v.value_or("/dev"); }},
        {flags.rundir, "--rundir", "GPUKILL_RUNDIR",
         [&](auto v) { options.roots.rundir = v.value_or("/run"); }},
        {flags.nvml_library, "--nvml-library", "GPUKILL_NVML_LIBRARY",
         [&](auto v) { options.nvml_library = v; }},
        {flags.state_dir, "--state-dir", "GPUKILL_STATE_DIR",
         [&](auto v) {
             options.state_dir =
                 v.value_or(running_as_root ? "/var/lib/gpukill"
                                            : xdg_dir(env, "XDG_STATE_HOME", "/.local/state"));
         }},
        {flags.config_dir, "--config-dir", "GPUKILL_CONFIG_DIR",
         [&](auto v) {
             options.config_dir = v.value_or(
                 running_as_root ? "/etc/gpukill" : xdg_dir(env, "XDG_CONFIG_HOME", "/.config"));
         }},
    };
    for (const Setting& setting : settings) {
        auto value = given(setting.flag, setting.flag_name, env, setting.variable);
        if (!value) return std::unexpected(value.error());
        setting.take(std::move(*value));
    }
    return options;
}

}  // namespace gpukill::cli

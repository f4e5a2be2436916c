#include "cli/global_options.hpp"

#include <gtest/gtest.h>

#include <map>

namespace gpukill::cli {
namespace {

Environment fake_env(std::map<std::string, std::string> values) {
    return [values](const char* name) -> std::optional<std::string> {
        auto found = values.find(name);
        if (found == values.end()) return std::nullopt;
        return found->second;
    };
}

TEST(GlobalOptions, FlagsWinOverEnvironmentWhichWinsOverDefaults) {
    GlobalFlags flags;
    flags.devfs = "/flag/dev";
    auto env = fake_env({{"GPUKILL_DEVFS", "/env/dev"},
                         {"GPUKILL_PROCFS", "/host/proc"},
                         {"GPUKILL_NVML_LIBRARY", "/opt/nvml.so"}});
    GlobalOptions options = resolve_global_options(flags, env, false).value();
    EXPECT_EQ(options.roots.devfs, "/flag/dev");
    EXPECT_EQ(options.roots.procfs, "/host/proc");
    EXPECT_EQ(options.roots.sysfs, "/sys");
    EXPECT_EQ(options.nvml_library, "/opt/nvml.so");
}

TEST(GlobalOptions, StateAndConfigDefaultToSystemPathsForRootAndXdgOtherwise) {
    auto env = fake_env({{"HOME", "/home/ann"}, {"XDG_CONFIG_HOME", "/cfg"}});
    GlobalOptions root = resolve_global_options({}, env, true).value();
    EXPECT_EQ(root.state_dir, "/var/lib/gpukill");
    EXPECT_EQ(root.config_dir, "/etc/gpukill");
    GlobalOptions user = resolve_global_options({}, env, false).value();
    EXPECT_EQ(user.state_dir, "/home/ann/.local/state/gpukill");
    EXPECT_EQ(user.config_dir, "/cfg/gpukill");
    EXPECT_FALSE(user.nvml_library.has_value());
}

// An empty value is a mistake (a script's variable that came out empty), not "default".
TEST(GlobalOptions, AnEmptyDirectoryIsRefusedNotReplacedByTheDefault) {
    GlobalFlags flags;
    flags.state_dir = "";
    auto by_flag = resolve_global_options(flags, fake_env({}), true);
    ASSERT_FALSE(by_flag);
    EXPECT_EQ(by_flag.error().what, "--state-dir is empty: give a path");
    auto by_variable = resolve_global_options({}, fake_env({{"GPUKILL_STATE_DIR", ""}}), true);
    ASSERT_FALSE(by_variable);
    EXPECT_NE(by_variable.error().what.find("GPUKILL_STATE_DIR is set but empty"),
              std::string::npos);
    EXPECT_FALSE(resolve_global_options({}, fake_env({{"GPUKILL_CONFIG_DIR", ""}}), true));
}

}  // namespace
}  // namespace gpukill::cli

// Allow lists match exactly: user, executable path, or a name whose executable is
// really that program. Never a substring, never a pattern.
#include "detect/allow_list.hpp"

#include <gtest/gtest.h>

#include "rogue_test_support.hpp"

namespace gpukill::detect {
namespace {

using rogue_test::process;

TEST(RogueAllowList, ByExactUserNameOrUid) {
    const AllowList allow{.users = {"bob"}, .executables = {}, .names = {}};
    auto match = allowed_by(process("xmrig", "/opt/xmrig", {"xmrig"}), allow);
    ASSERT_TRUE(match);
    EXPECT_EQ(match->kind, "user");
    EXPECT_EQ(match->entry, "bob");
    EXPECT_TRUE(allowed_by(process("x", "/x", {"x"}), {.users = {"1001"}}));
    EXPECT_FALSE(allowed_by(process("x", "/x", {"x"}), {.users = {"bo"}}));
    EXPECT_FALSE(allowed_by(process("x", "/x", {"x"}), {.users = {"bobby"}}));
    EXPECT_FALSE(allowed_by(process("x", "/x", {"x"}), {.users = {"100"}}));
}

TEST(RogueAllowList, ByExactExecutablePathUnlessDeleted) {
    const AllowList allow{.users = {}, .executables = {"/opt/render/bin/blender"}, .names = {}};
    EXPECT_TRUE(allowed_by(process("blender", "/opt/render/bin/blender", {"blender"}), allow));
    EXPECT_FALSE(allowed_by(process("blender", "/opt/render/bin/blender2", {"b"}), allow));
    EXPECT_FALSE(allowed_by(process("blender", "/opt/render/bin", {"b"}), allow));
    ProcessInfo replaced = process("blender", "/opt/render/bin/blender", {"blender"});
    replaced.exe_deleted = true;
    EXPECT_FALSE(allowed_by(replaced, allow));
}

TEST(RogueAllowList, ByNameNeverBySubstring) {
    const AllowList allow{.users = {}, .executables = {}, .names = {"python"}};
    auto real = allowed_by(process("python", "/usr/bin/python3.11", {"python", "t.py"}), allow);
    ASSERT_TRUE(real);
    EXPECT_EQ(real->kind, "name");
    // "python-xmrig" is not "python", whether as comm or as the executable.
    EXPECT_FALSE(allowed_by(process("python-xmrig", "/tmp/python-xmrig", {"x"}), allow));
    EXPECT_FALSE(allowed_by(process("python", "/tmp/python-xmrig", {"python"}), allow));
    // A miner renamed "python" is not allowed by "python": its executable is not python.
    EXPECT_FALSE(allowed_by(process("python", "/opt/xmrig", {"python"}), allow));
    // Without a readable executable a name cannot be checked, so it allows nothing.
    EXPECT_FALSE(allowed_by(process("python", std::nullopt, {"python"}), allow));
}

TEST(RogueAllowList, LongNamesThroughCommsCut) {
    const AllowList allow{.users = {}, .executables = {}, .names = {"nvidia-persistenced"}};
    EXPECT_TRUE(allowed_by(
        process("nvidia-persiste", "/usr/bin/nvidia-persistenced", {"nvidia-persistenced"}),
        allow));
    EXPECT_FALSE(allowed_by(process("nvidia-persiste", "/tmp/other", {"x"}), allow));
}

TEST(RogueAllowList, EmptyListsAllowNothing) {
    EXPECT_FALSE(allowed_by(process("python", "/usr/bin/python3", {"python"}), AllowList{}));
}

}  // namespace
}  // namespace gpukill::detect

#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>

#include "reclaim/safety_context.hpp"

namespace gpukill::reclaim {
namespace {

TEST(ProcfsNamespace, TheRealProcShowsThisProcess) {
    EXPECT_TRUE(procfs_shows_this_process(HostRoots{}));
    EXPECT_TRUE(gather_safety_context(HostRoots{}, {}).procfs_is_own_pid_namespace);
}

TEST(ProcfsNamespace, AProcFromAnotherNamespaceIsRecognised) {
    auto dir =
        std::filesystem::temp_directory_path() / ("gpukill-procns-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    // Another namespace's procfs names a different PID as "self".
    std::filesystem::create_symlink(std::to_string(getpid() + 1), dir / "self");
    HostRoots roots;
    roots.procfs = dir.string();
    EXPECT_FALSE(procfs_shows_this_process(roots));
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpukill::reclaim

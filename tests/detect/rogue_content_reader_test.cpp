// Reading what a GPU holder runs and names, over a procfs tree in a temporary
// directory: executables scanned (bounded, gpukill's own file not at all), and
// configuration files resolved as the process would (inside its root, from its working
// directory), read only when they are regular files its owner may read, bounded.
#include "detect/content_reader.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "../host/host_test_support.hpp"

namespace gpukill::detect {
namespace {

namespace fs = std::filesystem;
using host_test::TempDir;
using host_test::write_file;

const uid_t kOwner = ::getuid();

TEST(RogueContentReader, ExecutablesAreScannedWithinTheBound) {
    TempDir procfs;
    write_file(procfs / "42/exe", std::string(3000, 'x') + " stratum+tcp " + "KAWPOW " +
                                      std::string(3000, 'y') + " xmrig");
    RogueConfig config = default_rogue_config();
    ExecutableReader whole(procfs.path(), config);
    ASSERT_TRUE(whole.enabled());
    auto read = whole.read(42);
    ASSERT_TRUE(read) << read.error().what;
    ASSERT_TRUE(read->scan);
    EXPECT_EQ(read->scan->signatures, (std::vector<std::string>{"stratum+tcp", "kawpow", "xmrig"}));
    EXPECT_FALSE(read->scan->cut);
    EXPECT_EQ(read->file.owner_uid, kOwner);

    config.executable_scan.max_bytes = 3100;
    ExecutableReader bounded(procfs.path(), config);
    auto cut = bounded.read(42);
    ASSERT_TRUE(cut && cut->scan);
    EXPECT_EQ(cut->scan->bytes_read, 3100u);
    EXPECT_TRUE(cut->scan->cut);
    EXPECT_EQ(cut->scan->signatures, (std::vector<std::string>{"stratum+tcp", "kawpow"}));

    EXPECT_FALSE(whole.read(43)) << "no such process";
    config.set_weight(Signal::miner_signature, 0);
    EXPECT_FALSE(ExecutableReader(procfs.path(), config).enabled()) << "switched off: not read";
}

TEST(RogueContentReader, GpukillsOwnExecutableIsNotScanned) {
    TempDir procfs;
    fs::create_directories(procfs / "44");
    fs::create_symlink("/proc/self/exe", procfs / "44/exe");
    ExecutableReader reader(procfs.path(), default_rogue_config());
    auto read = reader.read(44);
    ASSERT_TRUE(read) << read.error().what;
    EXPECT_FALSE(read->scan);
}

Result<std::optional<ArgumentFile>> named(const TempDir& procfs, const std::string& path,
                                          std::uint64_t max_bytes = 1024) {
    return read_argument_file(procfs.path(), 42, kOwner, path, max_bytes);
}

// PROCFS/42 as the kernel shows a process: root and cwd are links to directories, the
// working directory inside the root (here ROOTFS/work). Returns ROOTFS.
fs::path lay_out_process(const TempDir& procfs, const std::string& cwd = "/work") {
    const fs::path rootfs = procfs / "rootfs-of-42";
    fs::create_directories(rootfs / cwd.substr(1));
    fs::create_directories(procfs / "42");
    fs::create_symlink(rootfs, procfs / "42/root");
    fs::create_symlink(rootfs / cwd.substr(1), procfs / "42/cwd");
    return rootfs;
}

TEST(RogueContentReader, ConfigurationFilesAsTheProcessSeesThem) {
    TempDir procfs;
    const fs::path rootfs = lay_out_process(procfs);
    write_file(rootfs / "home/u/.cache/settings.json", R"({"url": "p:3333"})");
    write_file(rootfs / "work/cfg.yaml", "algo: kawpow\n");
    auto absolute = named(procfs, "/home/u/.cache/settings.json");
    ASSERT_TRUE(absolute && *absolute) << (absolute ? "no file" : absolute.error().what);
    EXPECT_EQ((*absolute)->path, "/home/u/.cache/settings.json");
    EXPECT_EQ((*absolute)->text, R"({"url": "p:3333"})");
    EXPECT_FALSE((*absolute)->cut);
    auto relative = named(procfs, "cfg.yaml");
    ASSERT_TRUE(relative && *relative) << (relative ? "no file" : relative.error().what);
    EXPECT_EQ((*relative)->text, "algo: kawpow\n");
    auto upward = named(procfs, "../home/u/.cache/settings.json");
    ASSERT_TRUE(upward && *upward);
    EXPECT_EQ((*upward)->text, R"({"url": "p:3333"})");

    auto cut = named(procfs, "cfg.yaml", 4);
    ASSERT_TRUE(cut && *cut);
    EXPECT_EQ((*cut)->text, "algo");
    EXPECT_TRUE((*cut)->cut);
}

// The adversarial run's paths: absolute links, "..", and relative paths from the working
// directory that climb or link out, all resolve inside the process's root. The host's
// file (a secret next to the procfs tree) is never read.
TEST(RogueContentReader, EveryPathStaysInsideTheProcesssRoot) {
    TempDir procfs;
    const fs::path rootfs = lay_out_process(procfs);
    write_file(procfs / "hostsecret/creds.conf", "the host's secret\n");
    write_file(rootfs / "etc/passwd", "the container's own\n");
    write_file(rootfs / "hostsecret/creds.conf", "the container's own\n");
    fs::create_symlink("/etc/passwd", rootfs / "cfg");
    fs::create_symlink("../../../../../etc/passwd", rootfs / "up");
    fs::create_symlink(procfs / "hostsecret/creds.conf", rootfs / "work/cfglink");
    const std::string climb = "../../../../../../../../.." + procfs / "hostsecret/creds.conf";
    for (const std::string& path :
         {std::string("/cfg"), std::string("/up"), std::string("/../../etc/passwd"),
          std::string("../cfg"), std::string("../../../../etc/passwd")}) {
        auto file = named(procfs, path);
        ASSERT_TRUE(file && *file) << path << ": " << (file ? "no file" : file.error().what);
        EXPECT_EQ((*file)->text, "the container's own\n") << path << ": never the host's";
    }
    for (const std::string& path : {std::string("cfglink"), climb}) {
        auto file = named(procfs, path);
        ASSERT_TRUE(file) << path << ": " << file.error().what;
        EXPECT_FALSE(*file) << path << " read " << (*file)->text;
    }
}

// A chroot entered without chdir leaves the working directory outside the root: a
// relative path is then resolved nowhere, and the note says why.
TEST(RogueContentReader, AWorkingDirectoryOutsideTheRootResolvesNothing) {
    TempDir procfs;
    const fs::path rootfs = procfs / "jail";
    fs::create_directories(rootfs);
    fs::create_directories(procfs / "42");
    write_file(procfs / "outside/cfg.yaml", "algo: kawpow\n");
    fs::create_symlink(rootfs, procfs / "42/root");
    fs::create_symlink(procfs / "outside", procfs / "42/cwd");
    auto file = named(procfs, "cfg.yaml");
    ASSERT_FALSE(file);
    EXPECT_EQ(file.error().what,
              "cfg.yaml: the process's working directory is not inside its root");
}

TEST(RogueContentReader, WhatNamesNoReadableFileIsNothingOrANote) {
    TempDir procfs;
    const fs::path rootfs = lay_out_process(procfs);
    fs::create_directories(rootfs / "work/dir");
    ASSERT_EQ(::mkfifo((rootfs / "work/fifo").c_str(), 0600), 0);
    // `python3 -c CODE`, a directory, a FIFO (never opened: it would block): nothing.
    for (const char* path :
         {"import torch; print(torch.cuda.is_available())", "dir", "fifo", "/missing.json", ""}) {
        auto file = named(procfs, path);
        ASSERT_TRUE(file) << path << ": " << file.error().what;
        EXPECT_FALSE(*file) << path;
    }
    // A file its owner could not read itself is not read for it.
    write_file(rootfs / "work/private.json", "{}");
    fs::permissions(rootfs / "work/private.json", fs::perms::owner_read);
    auto other = read_argument_file(procfs.path(), 42, kOwner + 1, "private.json", 1024);
    ASSERT_FALSE(other);
    EXPECT_EQ(other.error().what, "private.json is not readable by the process's owner");
}

}  // namespace
}  // namespace gpukill::detect

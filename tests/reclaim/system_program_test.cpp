// The rule that decides whether a process runs a system program (and so whether a
// protected program's name or path may match it), over the facts procfs gives.
#include "reclaim/system_program.hpp"

#include <sys/stat.h>

#include <gtest/gtest.h>

namespace gpukill::reclaim {
namespace {

constexpr FileFacts kRootDir{.uid = 0, .mode = S_IFDIR | 0755};
constexpr FileFacts kRootFile{.uid = 0, .mode = S_IFREG | 0755};

// A file under directories each root's and 0755, the file itself root's and 0755.
ProgramFile system_file(const std::string& path) {
    ProgramFile file{.path = path};
    file.directories.push_back({"/", kRootDir});
    for (std::size_t slash = path.find('/', 1); slash != std::string::npos;
         slash = path.find('/', slash + 1)) {
        file.directories.push_back({path.substr(0, slash), kRootDir});
    }
    file.file = kRootFile;
    return file;
}

ProgramFiles xorg() {
    ProgramFiles files;
    files.own_user_namespace = true;
    files.executable = system_file("/usr/lib/xorg/Xorg");
    files.mapped = {system_file("/usr/lib/x86_64-linux-gnu/libc.so.6"),
                    system_file("/usr/lib/xorg/modules/drivers/nvidia_drv.so")};
    return files;
}

TEST(SystemProgram, RootsFilesUnderRootsDirectoriesAreASystemProgram) {
    EXPECT_EQ(not_system_program(xorg()), std::nullopt);
}

TEST(SystemProgram, AnExecutableInADirectoryOthersMayWriteIsNot) {
    ProgramFiles files = xorg();
    files.executable = system_file("/tmp/job/Xorg");
    files.executable.directories[1].facts.mode = S_IFDIR | 01777;  // /tmp, sticky or not
    EXPECT_EQ(not_system_program(files),
              "its executable \"/tmp/job/Xorg\" is in a directory root does not alone control: "
              "\"/tmp\" is writable by others (mode 1777)");

    files = xorg();
    files.executable.directories[2].facts.uid = 65534;  // /usr/lib owned by a user
    EXPECT_EQ(not_system_program(files),
              "its executable \"/usr/lib/xorg/Xorg\" is in a directory root does not alone "
              "control: \"/usr/lib\" is owned by uid 65534, not root");

    files = xorg();
    files.executable.directories[3].facts.mode = S_IFDIR | 0775;  // group-writable
    EXPECT_TRUE(not_system_program(files));
}

TEST(SystemProgram, TheFileItselfMustBeRootsAndWritableByNoOneElse) {
    ProgramFiles files = xorg();
    files.executable.file->uid = 65534;
    EXPECT_EQ(not_system_program(files),
              "its executable \"/usr/lib/xorg/Xorg\" is owned by uid 65534, not root");
    files = xorg();
    files.executable.file->mode = S_IFREG | 0757;
    EXPECT_EQ(not_system_program(files),
              "its executable \"/usr/lib/xorg/Xorg\" is writable by others (mode 757)");
    files = xorg();
    files.executable.file->mode = S_IFLNK | 0777;
    EXPECT_EQ(not_system_program(files),
              "its executable \"/usr/lib/xorg/Xorg\" is not a regular file");
    files = xorg();
    files.executable.file.reset();
    EXPECT_EQ(not_system_program(files),
              "its executable \"/usr/lib/xorg/Xorg\": its owner cannot be read");
}

// LD_PRELOAD, a plugin directory, a module path: any file the process maps executable
// counts as much as its executable.
TEST(SystemProgram, AUsersLibraryMappedIntoASystemBinaryIsNot) {
    ProgramFiles files = xorg();
    ProgramFile preload = system_file("/home/alice/hook.so");
    preload.directories[2].facts.uid = 1000;
    preload.file->uid = 1000;
    files.mapped.push_back(preload);
    EXPECT_EQ(not_system_program(files),
              "it maps \"/home/alice/hook.so\" is in a directory root does not alone control: "
              "\"/home/alice\" is owned by uid 1000, not root");
}

// A package upgrade replaces files under a running daemon: the deleted file's inode (read
// through map_files) and its directory still decide. A memfd is its creator's.
TEST(SystemProgram, DeletedFilesCountByTheirInodeAndDirectory) {
    ProgramFiles files = xorg();
    files.mapped[0].deleted = true;
    EXPECT_EQ(not_system_program(files), std::nullopt);
    files.mapped[0].file.reset();  // map_files unreadable
    EXPECT_TRUE(not_system_program(files));

    files = xorg();
    ProgramFile memfd{.path = "/memfd:jit", .deleted = true};
    memfd.directories = {{"/", kRootDir}};
    memfd.file = FileFacts{.uid = 1000, .mode = S_IFREG | 0777};
    files.mapped.push_back(memfd);
    EXPECT_TRUE(not_system_program(files));
}

TEST(SystemProgram, AUserNamespaceOfItsOwnIsNot) {
    ProgramFiles files = xorg();
    files.own_user_namespace = false;
    EXPECT_EQ(not_system_program(files),
              "it runs in a user namespace of its own, whose mounts its user controls");
}

TEST(SystemProgram, APathThatCouldNotBeWalkedIsNot) {
    ProgramFiles files = xorg();
    files.mapped[1].unresolved = "/usr/lib/xorg/modules: Not a directory (a symbolic link)";
    EXPECT_EQ(not_system_program(files),
              "it maps \"/usr/lib/xorg/modules/drivers/nvidia_drv.so\" cannot be checked: "
              "/usr/lib/xorg/modules: Not a directory (a symbolic link)");
    files = xorg();
    files.mapped_truncated = true;
    EXPECT_TRUE(not_system_program(files));
}

TEST(SystemProgram, AnEntryNamesTheExecutableByFileNameOrExactPathNeverByComm) {
    ProcessInfo info;
    info.comm = "Xorg";
    EXPECT_FALSE(executable_named(info, {"Xorg"})) << "no executable known";
    info.exe = "/tmp/job/gpusim";
    EXPECT_FALSE(executable_named(info, {"Xorg"}));
    info.exe = "/usr/lib/xorg/Xorg";
    EXPECT_TRUE(executable_named(info, {"Xorg"}));
    EXPECT_TRUE(executable_named(info, {"/usr/lib/xorg/Xorg"}));
    EXPECT_FALSE(executable_named(info, {"/usr/bin/Xorg", "Xorgs", "xorg"}));
    info.exe = "/usr/bin/nvidia-persistenced";  // longer than comm's 15 characters
    EXPECT_TRUE(executable_named(info, {"nvidia-persistenced"}));
}

TEST(SystemProgram, ExecutableMappingsAreReadFromMaps) {
    const std::string maps =
        "55d0c0a00000-55d0c0a02000 r--p 00000000 fd:01 1311 /usr/bin/sleep\n"
        "55d0c0a02000-55d0c0a06000 r-xp 00002000 fd:01 1311 /usr/bin/sleep\n"
        "7f1e0e400000-7f1e0e428000 r--p 00000000 fd:01 2621 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
        "7f1e0e428000-7f1e0e5bd000 r-xp 00028000 fd:01 2621 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
        "7f1e0e600000-7f1e0e601000 r-xp 00000000 00:01 77   /memfd:jit (deleted)\n"
        "7f1e0e700000-7f1e0e701000 r-xp 00000000 fd:01 99   /opt/a dir/lib x.so\n"
        "7f1e0e800000-7f1e0e801000 rw-p 00000000 00:00 0 \n"
        "7ffd5e7f1000-7ffd5e7f3000 r-xp 00000000 00:00 0    [vdso]\n"
        "7f1e0e900000-7f1e0e901000 r-xp 00000000 fd:01 2621 /usr/lib/x86_64-linux-gnu/libc.so.6\n";
    const std::vector<ExecutableMapping> mappings = parse_executable_mappings(maps);
    ASSERT_EQ(mappings.size(), 4U);
    EXPECT_EQ(mappings[0].path, "/usr/bin/sleep");
    EXPECT_EQ(mappings[0].range, "55d0c0a02000-55d0c0a06000");
    EXPECT_EQ(mappings[1].path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
    EXPECT_EQ(mappings[2].path, "/memfd:jit");
    EXPECT_TRUE(mappings[2].deleted);
    EXPECT_EQ(mappings[3].path, "/opt/a dir/lib x.so");
    EXPECT_FALSE(mappings[3].deleted);
}

}  // namespace
}  // namespace gpukill::reclaim

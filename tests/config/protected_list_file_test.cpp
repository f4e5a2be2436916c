// protected.yaml: entries merged with (or replacing) the defaults, and every way a file
// can be wrong reported as one "FILE:LINE:COLUMN: what" line with nothing applied.
#include "config/protected_list_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "../host/host_test_support.hpp"

namespace gpukill::config {
namespace {

using host_test::TempDir;
using host_test::write_file;
using reclaim::ProtectedList;

const ProtectedList kDefaults{.names = {"Xorg", "nvidia-persistenced"}, .users = {}, .pids = {}};

Result<ProtectedList> parse(std::string_view text) {
    return parse_protected_list(text, "protected.yaml", kDefaults);
}

std::string error_of(std::string_view text) {
    auto parsed = parse(text);
    if (parsed) return "(parsed)";
    return parsed.error().what;
}

TEST(ProtectedListFile, AddsEveryKindOfEntryToTheDefaults) {
    auto list = parse(R"(# site additions
names: [my-inference-server, "tritonserver"]
users:
  - slurm
  - monitoring
pids: [1234, 5678]
replace_defaults: false
)");
    ASSERT_TRUE(list) << list.error().what;
    EXPECT_EQ(list->names, (std::set<std::string>{"Xorg", "nvidia-persistenced",
                                                  "my-inference-server", "tritonserver"}));
    EXPECT_EQ(list->users, (std::set<std::string>{"monitoring", "slurm"}));
    EXPECT_EQ(list->pids, (std::set<pid_t>{1234, 5678}));
}

TEST(ProtectedListFile, ReplaceDefaultsKeepsOnlyTheFile) {
    auto list = parse("replace_defaults: true\nnames: [Xorg]\nusers: [root]\n");
    ASSERT_TRUE(list) << list.error().what;
    EXPECT_EQ(list->names, std::set<std::string>{"Xorg"});
    EXPECT_EQ(list->users, std::set<std::string>{"root"});
    EXPECT_TRUE(list->pids.empty());

    auto nothing = parse("replace_defaults: True\n");
    ASSERT_TRUE(nothing);
    EXPECT_TRUE(nothing->names.empty());
}

TEST(ProtectedListFile, EmptyFilesAndEmptyKeysAddNothing) {
    for (const char* text : {"", "# only a comment\n", "---\n", "names:\nusers: []\npids: ~\n"}) {
        auto list = parse(text);
        ASSERT_TRUE(list) << text << ": " << list.error().what;
        EXPECT_EQ(list->names, kDefaults.names) << text;
        EXPECT_TRUE(list->users.empty());
        EXPECT_TRUE(list->pids.empty());
    }
}

TEST(ProtectedListFile, UnknownKeysAreErrorsWithTheirPosition) {
    EXPECT_EQ(error_of("names: [a]\n  \nprocesses: [b]\n"),
              "protected.yaml:3:1: unknown key \"processes\" (expected names, users, pids, "
              "replace_defaults)");
    EXPECT_EQ(error_of("names: [a]\nnames: [b]\n"),
              "protected.yaml:2:1: key \"names\" appears twice");
}

TEST(ProtectedListFile, WrongTypesAreErrorsWithTheirPosition) {
    EXPECT_EQ(error_of("names: Xorg\n"),
              "protected.yaml:1:8: names must be a list, e.g. names: [a, b]");
    EXPECT_EQ(error_of("users:\n  - [a, b]\n"),
              "protected.yaml:2:5: users: each entry must be a non-empty user name");
    EXPECT_EQ(error_of("names: [\"\"]\n"),
              "protected.yaml:1:9: names: each entry must be a non-empty program name");
    EXPECT_EQ(error_of("names: [~]\n"),
              "protected.yaml:1:9: names: each entry must be a non-empty program name");
    EXPECT_EQ(error_of("replace_defaults: yes\n"),
              "protected.yaml:1:19: replace_defaults must be true or false, not \"yes\"");
    EXPECT_EQ(error_of("replace_defaults: \"true\"\n"),
              "protected.yaml:1:19: replace_defaults must be true or false, not \"true\"");
    EXPECT_EQ(error_of("- names\n"),
              "protected.yaml:1:1: expected a mapping with the keys names, users, pids, "
              "replace_defaults");
}

TEST(ProtectedListFile, PidsMustBePositiveIntegersWithinTheKernelLimit) {
    EXPECT_EQ(error_of("pids: [12, 0]\n"), "protected.yaml:1:12: pids: 0 is not a positive PID");
    EXPECT_EQ(error_of("pids:\n  - -5\n"), "protected.yaml:2:5: pids: -5 is not a positive PID");
    EXPECT_EQ(error_of("pids: [4194305]\n"),
              "protected.yaml:1:8: pids: 4194305 is above the largest possible PID (4194304)");
    EXPECT_EQ(error_of("pids: [99999999999999999999999]\n"),
              "protected.yaml:1:8: pids: 99999999999999999999999 is above the largest possible "
              "PID (4194304)");
    EXPECT_EQ(error_of("pids: [1.5]\n"), "protected.yaml:1:8: pids: \"1.5\" is not an integer");
    EXPECT_EQ(error_of("pids: [+7]\n"), "protected.yaml:1:8: pids: \"+7\" is not an integer");
    EXPECT_EQ(error_of("pids: [\"42\"]\n"), "protected.yaml:1:8: pids: \"42\" is not an integer");
    EXPECT_EQ(error_of("pids: [{a: 1}]\n"), "protected.yaml:1:8: pids: entry is not an integer");
    EXPECT_TRUE(parse("pids: [4194304]\n"));
}

TEST(ProtectedListFile, APathIsNotAName) {
    EXPECT_EQ(error_of("names: [/usr/bin/Xorg]\n"),
              "protected.yaml:1:9: names: \"/usr/bin/Xorg\" is a path; a name is matched against "
              "the executable's file name (e.g. \"Xorg\"), a path is written as {path: "
              "\"/usr/bin/Xorg\"}");
}

// A program may be named by its exact path and be protected for one account only.
TEST(ProtectedListFile, ProgramsByPathAndByOwner) {
    auto list = parse(R"(names:
  - tritonserver
  - {path: /opt/triton/bin/tritonserver}
  - {name: nv-hostengine, user: root}
  - {path: /usr/bin/nv-hostengine, user: dcgm}
  - {name: nv-hostengine, user: nvidia}
)");
    ASSERT_TRUE(list) << list.error().what;
    EXPECT_TRUE(list->names.contains("tritonserver"));
    EXPECT_FALSE(list->names.contains("nv-hostengine"));
    EXPECT_EQ(list->executable_paths, std::set<std::string>{"/opt/triton/bin/tritonserver"});
    EXPECT_EQ(list->owned_programs.at("nv-hostengine"), (std::set<std::string>{"nvidia", "root"}));
    EXPECT_EQ(list->owned_programs.at("/usr/bin/nv-hostengine"), std::set<std::string>{"dcgm"});
}

TEST(ProtectedListFile, AProgramEntryIsCheckedKeyByKey) {
    EXPECT_EQ(error_of("names:\n  - {path: usr/bin/Xorg}\n"),
              "protected.yaml:2:12: names: path \"usr/bin/Xorg\" is not an absolute path in "
              "canonical form (/usr/lib/xorg/Xorg)");
    EXPECT_EQ(error_of("names:\n  - {path: /usr/../tmp/Xorg}\n").substr(0, 20),
              "protected.yaml:2:12:");
    EXPECT_EQ(error_of("names:\n  - {name: Xorg, path: /usr/bin/Xorg}\n"),
              "protected.yaml:2:18: names: an entry has either name or path, not both");
    EXPECT_EQ(error_of("names:\n  - {user: root}\n"),
              "protected.yaml:2:5: names: an entry needs a name or a path");
    EXPECT_EQ(error_of("names:\n  - {name: Xorg, uid: 0}\n").substr(0, 45),
              "protected.yaml:2:18: names: unknown key \"uid\"");
}

TEST(ProtectedListFile, SyntaxErrorsCarryTheirPosition) {
    EXPECT_EQ(error_of("names: [a, b\n"), "protected.yaml:2:1: end of sequence flow not found");
    EXPECT_EQ(error_of("names: [a]\n---\nusers: [b]\n").substr(0, 19), "protected.yaml:3:1:");
}

TEST(ProtectedListFile, ErrorsStayOnOneLine) {
    const std::string error = error_of("\"bad\\nkey\": 1\n");
    EXPECT_EQ(error,
              "protected.yaml:1:1: unknown key \"bad\\x0akey\" (expected names, users, "
              "pids, replace_defaults)");
}

TEST(ProtectedListFile, AMissingFileMeansTheDefaults) {
    TempDir tmp;
    auto list = load_protected_list(tmp / "no-such-dir");
    ASSERT_TRUE(list) << list.error().what;
    const ProtectedList defaults = reclaim::default_protected_list();
    EXPECT_EQ(list->names, defaults.names);
    EXPECT_EQ(list->users, defaults.users);
    EXPECT_EQ(list->pids, defaults.pids);
}

TEST(ProtectedListFile, LoadsFromTheConfigDirectoryOverTheBuiltInDefaults) {
    TempDir tmp;
    write_file(tmp / "protected.yaml", "names: [site-daemon]\npids: [77]\n");
    auto list = load_protected_list(tmp.path());
    ASSERT_TRUE(list) << list.error().what;
    EXPECT_TRUE(list->names.contains("site-daemon"));
    for (const std::string& name : reclaim::default_protected_list().names) {
        EXPECT_TRUE(list->names.contains(name)) << name;
    }
    EXPECT_EQ(list->pids, std::set<pid_t>{77});
}

TEST(ProtectedListFile, ErrorsNameTheFile) {
    TempDir tmp;
    write_file(tmp / "protected.yaml", "names: [a]\nusers: 5\n");
    auto list = load_protected_list(tmp.path());
    ASSERT_FALSE(list);
    EXPECT_EQ(list.error().what,
              tmp / "protected.yaml" + ":2:8: users must be a list, e.g. users: [a, b]");
}

TEST(ProtectedListFile, AnUnreadableFileIsAnErrorNotTheDefaults) {
    TempDir tmp;
    std::filesystem::create_directory(tmp / "protected.yaml");
    auto list = load_protected_list(tmp.path());
    ASSERT_FALSE(list);
    EXPECT_EQ(list.error().what, "cannot read " + (tmp / "protected.yaml") + ": Is a directory");
}

// The documented example must stay loadable.
TEST(ProtectedListFile, TheDocumentedExampleLoads) {
    const std::string path = std::string(GPUKILL_FIXTURES_DIR) + "/../../docs/examples";
    auto list = load_protected_list(path);
    ASSERT_TRUE(list) << list.error().what;
    EXPECT_TRUE(list->names.contains("tritonserver"));
    EXPECT_TRUE(list->names.contains("Xorg"));
    EXPECT_TRUE(list->users.contains("slurm"));
}

}  // namespace
}  // namespace gpukill::config

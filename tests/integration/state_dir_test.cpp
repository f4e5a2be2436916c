// The state directory under hostile or unusual conditions: special files where the
// audit log or the usage history should be, a hard link to a file outside, a state
// directory reached through a symbolic link. Each answer is one line and bounded in
// time; nothing is written where it should not be.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support.hpp"

namespace gpukill::testing {
namespace {

namespace fs = std::filesystem;

std::string state_of(const SimulatedHost& host) {
    return host.env().at("GPUKILL_STATE_DIR");
}

// A FIFO blocked the readers forever and /dev/zero fed them without end.
TEST(StateDir, SpecialFilesAreRefusedByTheReadersAtOnce) {
    SimulatedHost host;
    const std::string state = state_of(host);
    fs::create_directories(state);
    ASSERT_EQ(::mkfifo((state + "/audit.jsonl").c_str(), 0600), 0);
    ASSERT_EQ(::mkfifo((state + "/usage.sqlite3").c_str(), 0600), 0);
    CommandResult actions = run_command({GPUKILL_BIN, "audit", "--actions"}, host.env(), 20);
    EXPECT_EQ(actions.exit_code, 1) << actions.err;
    EXPECT_NE(actions.err.find("not a regular file"), std::string::npos) << actions.err;
    CommandResult history = run_command({GPUKILL_BIN, "audit"}, host.env(), 20);
    EXPECT_EQ(history.exit_code, 1) << history.err;
    EXPECT_NE(history.err.find("not a regular file"), std::string::npos) << history.err;

    fs::remove(state + "/audit.jsonl");
    fs::create_symlink("/dev/zero", state + "/audit.jsonl");
    CommandResult zero = run_command({GPUKILL_BIN, "audit", "--actions"}, host.env(), 20);
    EXPECT_EQ(zero.exit_code, 1) << zero.err;
    EXPECT_NE(zero.err.find("not a regular file"), std::string::npos) << zero.err;
}

// `ln victim STATE/audit.jsonl`: every kill appended to the victim.
TEST(StateDir, AnAuditLogWithASecondNameIsNotWritten) {
    SimulatedHost host;
    const std::string state = state_of(host);
    fs::create_directories(state);
    const std::string victim = fs::path(host.root()).parent_path() / "victim";
    std::ofstream(victim) << "precious\n";
    fs::create_hard_link(victim, state + "/audit.jsonl");
    Workload job = host.run({"--gpu", "0", "--mem", "256M"});
    CommandResult r = host.gpukill({"kill", "--pid", std::to_string(job.pid())});
    EXPECT_NE(r.err.find("hard links"), std::string::npos) << r.err;
    std::ifstream in(victim);
    std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(content, "precious\n");
}

// SQLite's NOFOLLOW open refused a link anywhere in the path; the audit log worked.
TEST(StateDir, AStateDirectoryReachedThroughALinkKeepsTheHistory) {
    SimulatedHost host;
    const fs::path base = fs::path(host.root()).parent_path();
    fs::create_directories(base / "real-state");
    fs::create_directory_symlink(base / "real-state", base / "link");
    auto env = host.env();
    env["GPUKILL_STATE_DIR"] = (base / "link").string();
    Workload job = host.run({"--gpu", "0", "--mem", "256M"});
    CommandResult list = run_command({GPUKILL_BIN, "list"}, env);
    ASSERT_EQ(list.exit_code, 0) << list.err;
    EXPECT_EQ(list.err.find("usage history not recorded"), std::string::npos) << list.err;
    EXPECT_GT(fs::file_size(base / "real-state" / "usage.sqlite3"), 0u);
    CommandResult audit = run_command({GPUKILL_BIN, "audit", "--json"}, env);
    EXPECT_EQ(audit.exit_code, 0) << audit.err;
}

}  // namespace
}  // namespace gpukill::testing

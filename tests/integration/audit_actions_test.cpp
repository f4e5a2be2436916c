// `gpukill audit --actions` after real `gpukill kill` runs, and `gpukill list` carrying
// on, output and exit code unchanged, over a broken or unwritable history.
#include <gtest/gtest.h>

#include "audit_support.hpp"

namespace gpukill::testing {
namespace {

nlohmann::json actions_json(const SimulatedHost& host, std::vector<std::string> args = {}) {
    args.insert(args.begin(), {"audit", "--actions"});
    args.push_back("--json");
    return parse_json(host.gpukill(args));
}

std::vector<std::string> events_of(const nlohmann::json& doc) {
    std::vector<std::string> events;
    for (const auto& record : doc["records"]) events.push_back(record["event"]);
    return events;
}

TEST(AuditActions, AKillShowsItsRecordsFilteredByProcessAndUser) {
    SimulatedHost host;
    Workload w = host.run({"--gpu", "0", "--mem", "1G", "--name", "trainer"});
    CommandResult kill = host.gpukill({"kill", "--pid", std::to_string(w.pid())});
    ASSERT_EQ(kill.exit_code, 0) << kill.err << kill.out;

    const nlohmann::json doc = actions_json(host);
    EXPECT_EQ(doc["kind"], "actions");
    EXPECT_EQ(doc["source"], state_dir(host) + "/audit.jsonl");
    EXPECT_EQ(doc["skipped_lines"], 0);
    EXPECT_EQ(events_of(doc), (std::vector<std::string>{"planned", "signal_intent", "signalled",
                                                        "result", "verified"}));
    const nlohmann::json& result = doc["records"][3];
    EXPECT_EQ(result["target"]["pid"], w.pid());
    EXPECT_EQ(result["outcome"], "terminated");

    // The name matches every record about the process; `verified` names none.
    EXPECT_EQ(events_of(actions_json(host, {"--audit-process", "^trainer$"})),
              (std::vector<std::string>{"planned", "signal_intent", "signalled", "result"}));
    EXPECT_TRUE(actions_json(host, {"--audit-process", "^train$"})["records"].empty());
    EXPECT_EQ(actions_json(host, {"--audit-user", current_user_name()})["records"].size(), 5u);
    EXPECT_TRUE(actions_json(host, {"--audit-user", "nobody"})["records"].empty());

    CommandResult table = host.gpukill({"audit", "--actions"});
    ASSERT_EQ(table.exit_code, 0) << table.err;
    const std::string target = std::to_string(w.pid()) + " trainer (" + current_user_name() + ")";
    EXPECT_NE(table.out.find(target), std::string::npos) << table.out;
    EXPECT_NE(table.out.find("terminated (SIGTERM)"), std::string::npos) << table.out;
    EXPECT_NE(table.out.find("released 1.0 GiB"), std::string::npos) << table.out;
}

TEST(AuditActions, DamagedLinesAreSkippedAndCounted) {
    SimulatedHost host;
    Workload w = host.run({"--gpu", "1", "--mem", "1G"});
    ASSERT_EQ(host.gpukill({"kill", "--pid", std::to_string(w.pid())}).exit_code, 0);
    {
        std::ofstream log(state_dir(host) + "/audit.jsonl", std::ios::app);
        log << "this is not a record\n{\"event\":\"result\",\"timestamp_unix";  // cut short
    }
    const nlohmann::json doc = actions_json(host);
    EXPECT_EQ(doc["skipped_lines"], 2);
    EXPECT_EQ(doc["records"].size(), 5u);
    CommandResult table = host.gpukill({"audit", "--actions"});
    EXPECT_EQ(table.exit_code, 0);
    EXPECT_NE(table.out.find("2 lines of the log skipped"), std::string::npos) << table.out;
}

TEST(AuditActions, NoLogYetIsAClearLineAndSuccess) {
    SimulatedHost host;
    CommandResult r = host.gpukill({"audit", "--actions"});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.out, "No actions recorded at " + state_dir(host) +
                         "/audit.jsonl yet; gpukill kill and reset record theirs there.\n");
    const nlohmann::json doc = actions_json(host);
    EXPECT_EQ(doc["source_available"], false);
    EXPECT_TRUE(doc["records"].empty());
}

// The listing with a broken history is byte for byte the listing without one, plus one
// warning line.
void expect_list_unharmed(const SimulatedHost& host, const std::string& warning) {
    CommandResult with = host.gpukill({"list", "--json"}, every_sample());
    CommandResult without = host.gpukill({"list", "--json"}, {{"GPUKILL_NO_HISTORY", "1"}});
    ASSERT_EQ(with.exit_code, 0) << with.err;
    ASSERT_EQ(without.exit_code, 0);
    auto with_doc = nlohmann::json::parse(with.out);
    auto without_doc = nlohmann::json::parse(without.out);
    for (auto* doc : {&with_doc, &without_doc}) {
        doc->erase("timestamp");
        doc->erase("timestamp_unix_ms");
        (*doc)["visibility"].erase("processes_scanned");  // the rest of the host comes and goes
        for (auto& gpu : (*doc)["gpus"]) gpu.erase("energy_joules");  // a counter that runs
    }
    EXPECT_EQ(with_doc, without_doc) << nlohmann::json::diff(with_doc, without_doc).dump();
    EXPECT_EQ(with.err, "gpukill: usage history not recorded: " + warning + "\n");
}

TEST(AuditActions, ListCarriesOnOverACorruptOrForeignHistory) {
    SimulatedHost host;
    Workload w = host.run({"--gpu", "0", "--mem", "1G"});
    const std::string path = state_dir(host) + "/usage.sqlite3";
    std::filesystem::create_directories(state_dir(host));
    const std::string junk = "not a database, but someone's notes\n" + std::string(4096, 'x');
    std::ofstream(path) << junk;
    expect_list_unharmed(host, "cannot read usage history " + path +
                                   ": not an SQLite database (a foreign or damaged file); "
                                   "gpukill will not overwrite it; move it aside to start a new "
                                   "history");
    std::ifstream in(path);
    std::string after((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(after, junk);
    CommandResult audit = host.gpukill({"audit"});
    EXPECT_EQ(audit.exit_code, 1);
    EXPECT_NE(audit.err.find("not an SQLite database"), std::string::npos) << audit.err;
}

TEST(AuditActions, ListCarriesOnOverAStateDirectoryItCannotWrite) {
    SimulatedHost host;
    open_host_to_all_users(host);
    Workload w = host.run({"--gpu", "0", "--mem", "1G"});
    // STATE_DIR's parent belongs to root (0755): nobody cannot create it. (Its own
    // configuration directory, not root's inherited through HOME.)
    std::map<std::string, std::string> env = every_sample();
    env["GPUKILL_CONFIG_DIR"] = host.root() + "/../config";
    CommandResult r = gpukill_as(host, kNobody, {"list", "--json"}, env);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "gpukill: usage history not recorded: cannot create state directory " +
                         state_dir(host) + ": Permission denied\n");
    EXPECT_FALSE(nlohmann::json::parse(r.out)["gpus"].empty());
    // A history nobody can read is a permission error for audit.
    ASSERT_EQ(host.gpukill({"list"}, every_sample()).exit_code, 0);
    CommandResult audit = gpukill_as(host, kNobody, {"audit"}, env);
    EXPECT_EQ(audit.exit_code, 4) << audit.err;
}

}  // namespace
}  // namespace gpukill::testing

// `gpukill list` records what it sees; `gpukill audit` reads it back per process, as a
// summary, filtered by user and process, against real gpusim workloads of two users.
#include <gtest/gtest.h>

#include "audit_support.hpp"

namespace gpukill::testing {
namespace {

constexpr std::uint64_t GiB = 1ULL << 30;

void sample(const SimulatedHost& host, int times) {
    for (int i = 0; i < times; ++i) {
        CommandResult r = host.gpukill({"list"}, every_sample());
        ASSERT_EQ(r.exit_code, 0) << r.err;
        ASSERT_EQ(r.err, "");
    }
}

nlohmann::json audit_json(const SimulatedHost& host, std::vector<std::string> args = {}) {
    args.insert(args.begin(), "audit");
    args.push_back("--json");
    return parse_json(host.gpukill(args));
}

const nlohmann::json* row_for(const nlohmann::json& rows, const char* key,
                              const nlohmann::json& value) {
    for (const auto& row : rows) {
        if (row[key] == value) return &row;
    }
    return nullptr;
}

TEST(AuditHistory, ListRunsAreSampledAndAuditShowsEachProcess) {
    SimulatedHost host;
    Workload trainer = host.run({"--gpu", "0", "--mem", "2G", "--util", "80", "--name", "trainer"});
    Workload infer = host.run({"--gpu", "1", "--mem", "1G", "--util", "30", "--name", "infer"});
    sample(host, 3);

    const nlohmann::json doc = audit_json(host);
    EXPECT_EQ(doc["schema_version"], 1);
    EXPECT_EQ(doc["kind"], "processes");
    EXPECT_EQ(doc["source"], state_dir(host) + "/usage.sqlite3");
    EXPECT_EQ(doc["source_available"], true);
    EXPECT_EQ(doc["window"]["hours"], 24.0);
    EXPECT_EQ(doc["samples"], 3);
    ASSERT_EQ(doc["processes"].size(), 2u) << doc.dump(2);
    const nlohmann::json* t = row_for(doc["processes"], "pid", trainer.pid());
    ASSERT_NE(t, nullptr) << doc.dump(2);
    EXPECT_EQ((*t)["start_time_ticks"], trainer.start_time_ticks());
    EXPECT_EQ((*t)["name"], "trainer");
    EXPECT_EQ((*t)["user"], current_user_name());
    EXPECT_EQ((*t)["gpus"], nlohmann::json::array({0}));
    EXPECT_EQ((*t)["samples"], 3);
    EXPECT_EQ((*t)["peak_memory_bytes"], 2 * GiB);
    EXPECT_EQ((*t)["average_memory_bytes"], 2 * GiB);
    EXPECT_EQ((*t)["average_gpu_utilization_percent"], 80.0);
    EXPECT_GT((*t)["gpu_hours"].get<double>(), 0.0);
    EXPECT_TRUE((*t)["command"].get<std::string>().starts_with("trainer run --root "));
    EXPECT_LE((*t)["first_seen_unix_ms"].get<std::int64_t>(),
              (*t)["last_seen_unix_ms"].get<std::int64_t>());
    const nlohmann::json* i = row_for(doc["processes"], "pid", infer.pid());
    ASSERT_NE(i, nullptr);
    EXPECT_EQ((*i)["gpus"], nlohmann::json::array({1}));
    EXPECT_EQ((*i)["peak_memory_bytes"], GiB);

    CommandResult table = host.gpukill({"audit"});
    ASSERT_EQ(table.exit_code, 0) << table.err;
    EXPECT_NE(table.out.find("trainer"), std::string::npos) << table.out;
    EXPECT_NE(table.out.find(std::to_string(infer.pid())), std::string::npos) << table.out;
    EXPECT_NE(table.out.find("3 samples"), std::string::npos) << table.out;
}

TEST(AuditHistory, SummaryFiltersAndUsersAcrossTwoAccounts) {
    SimulatedHost host;
    open_host_to_all_users(host);
    Workload trainer = host.run({"--gpu", "0", "--mem", "4G", "--util", "90", "--name", "trainer"});
    ForeignWorkload miner(host, kNobody,
                          {"--gpu", "1", "--mem", "1G", "--util", "40", "--name", "infer"});
    sample(host, 4);

    const nlohmann::json summary = audit_json(host, {"--audit-summary"});
    EXPECT_EQ(summary["kind"], "summary");
    EXPECT_EQ(summary["samples"], 4);
    ASSERT_EQ(summary["users"].size(), 2u) << summary.dump(2);
    const nlohmann::json* me = row_for(summary["users"], "user", current_user_name());
    const nlohmann::json* nobody = row_for(summary["users"], "user", "nobody");
    ASSERT_NE(me, nullptr);
    ASSERT_NE(nobody, nullptr) << summary.dump(2);
    EXPECT_EQ((*nobody)["uid"], kNobody);
    EXPECT_EQ((*me)["peak_memory_bytes"], 4 * GiB);
    EXPECT_EQ((*nobody)["peak_memory_bytes"], GiB);
    EXPECT_GT((*me)["gpu_hours"].get<double>(), 0.0);
    // Same sampling, one GPU each: the same GPU-hours.
    EXPECT_DOUBLE_EQ((*me)["gpu_hours"].get<double>(), (*nobody)["gpu_hours"].get<double>());
    EXPECT_NEAR(summary["total_gpu_hours"].get<double>(),
                (*me)["gpu_hours"].get<double>() + (*nobody)["gpu_hours"].get<double>(), 1e-5);
    const nlohmann::json* infer_row = row_for(summary["processes"], "name", "infer");
    ASSERT_NE(infer_row, nullptr);
    EXPECT_EQ((*infer_row)["users"], nlohmann::json::array({"nobody"}));
    ASSERT_EQ(summary["gpus"].size(), 2u);
    EXPECT_EQ(summary["gpus"][0]["index"], 0);  // 90% before 40%
    EXPECT_EQ(summary["gpus"][0]["average_utilization_percent"], 90.0);
    EXPECT_EQ(summary["gpus"][1]["peak_memory_used_bytes"], GiB);
    EXPECT_EQ(summary["by_hour"].size(), 24u);

    // --audit-user: exact name or uid, never a substring.
    for (const std::string& user : {std::string("nobody"), std::to_string(kNobody)}) {
        const nlohmann::json only = audit_json(host, {"--audit-user", user});
        ASSERT_EQ(only["processes"].size(), 1u) << user;
        EXPECT_EQ(only["processes"][0]["pid"], miner.pid());
        EXPECT_EQ(only["filters"]["user"], user);
    }
    EXPECT_TRUE(audit_json(host, {"--audit-user", "nob"})["processes"].empty());
    const nlohmann::json mine =
        audit_json(host, {"--audit-summary", "--audit-user", current_user_name()});
    ASSERT_EQ(mine["users"].size(), 1u);
    EXPECT_EQ(mine["gpus"].size(), 2u) << "GPU figures describe the whole GPU";

    // --audit-process: a regex on name and command line.
    const nlohmann::json by_name = audit_json(host, {"--audit-process", "^train"});
    ASSERT_EQ(by_name["processes"].size(), 1u);
    EXPECT_EQ(by_name["processes"][0]["pid"], trainer.pid());
    const nlohmann::json by_command = audit_json(host, {"--audit-process", "--gpu 1 "});
    ASSERT_EQ(by_command["processes"].size(), 1u);
    EXPECT_EQ(by_command["processes"][0]["pid"], miner.pid());

    CommandResult table = host.gpukill({"--audit", "--audit-summary"});
    ASSERT_EQ(table.exit_code, 0) << table.err;
    for (const char* part : {"By user", "nobody", "By process name", "GPUs, busiest first",
                             "By hour of day (local time)"}) {
        EXPECT_NE(table.out.find(part), std::string::npos) << part << "\n" << table.out;
    }
}

TEST(AuditHistory, BadFiltersAndWindowsAreInvalidArguments) {
    SimulatedHost host;
    CommandResult regex = host.gpukill({"audit", "--audit-process", "python("});
    EXPECT_EQ(regex.exit_code, 3);
    EXPECT_TRUE(regex.err.starts_with("gpukill: invalid --audit-process: ")) << regex.err;
    for (const char* hours : {"0", "-5", "nan"}) {
        CommandResult r = host.gpukill({"audit", "--audit-hours", hours});
        EXPECT_EQ(r.exit_code, 3) << hours << r.err;
    }
    CommandResult both = host.gpukill({"audit", "--audit-summary", "--actions"});
    EXPECT_EQ(both.exit_code, 3);
    EXPECT_EQ(both.err, "gpukill: --audit-summary and --actions are separate views; choose one\n");
}

TEST(AuditHistory, NoHistoryYetIsAClearLineAndSuccess) {
    SimulatedHost host;
    const std::string path = state_dir(host) + "/usage.sqlite3";
    CommandResult table = host.gpukill({"audit"});
    EXPECT_EQ(table.exit_code, 0);
    EXPECT_EQ(table.out, "no usage history at " + path +
                             " yet; it is recorded by gpukill list and gpukill list --watch\n");
    const nlohmann::json doc = audit_json(host, {"--audit-summary"});
    EXPECT_EQ(doc["source_available"], false);
    EXPECT_EQ(doc["source"], path);
    EXPECT_TRUE(doc["users"].empty());
    EXPECT_EQ(doc["samples"], 0);
}

TEST(AuditHistory, RapidListsAreSampledOncePerIntervalByDefault) {
    SimulatedHost host;
    Workload w = host.run({"--gpu", "0", "--mem", "1G"});
    for (int i = 0; i < 3; ++i) ASSERT_EQ(host.gpukill({"list"}).exit_code, 0);
    EXPECT_EQ(audit_json(host)["samples"], 1);
}

TEST(AuditHistory, FilteredListingsRecordTheWholeHost) {
    SimulatedHost host;
    Workload w = host.run({"--gpu", "0", "--mem", "1G"});
    ASSERT_EQ(host.gpukill({"list", "--vendor", "amd"}, every_sample()).exit_code, 0);
    const nlohmann::json after_vendor = audit_json(host, {"--audit-summary"});
    EXPECT_EQ(after_vendor["gpus"].size(), 2u);   // the NVIDIA GPUs, though none was shown
    EXPECT_EQ(after_vendor["users"].size(), 1u);  // and the workload on GPU 0
    ASSERT_EQ(host.gpukill({"list", "--gpu", "1"}, every_sample()).exit_code, 0);
    const nlohmann::json doc = audit_json(host, {"--audit-summary"});
    EXPECT_EQ(doc["gpus"].size(), 2u);
    EXPECT_EQ(doc["samples"], 2);
}

TEST(AuditHistory, NoHistoryVariableRecordsNothing) {
    SimulatedHost host;
    Workload w = host.run({"--gpu", "0", "--mem", "1G"});
    CommandResult r = host.gpukill({"list"}, {{"GPUKILL_NO_HISTORY", "1"}});
    ASSERT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.err, "");
    EXPECT_FALSE(std::filesystem::exists(state_dir(host) + "/usage.sqlite3"));
}

TEST(AuditHistory, AWatchRecordsEachFrame) {
    SimulatedHost host;
    Workload w = host.run({"--gpu", "1", "--mem", "1G"});
    std::map<std::string, std::string> env = host.env();
    env["GPUKILL_HISTORY_MIN_INTERVAL_SECONDS"] = "0";
    RunningCommand watch({GPUKILL_BIN, "list", "--watch", "--json", "--interval", "0.1"}, env);
    for (int frame = 0; frame < 3; ++frame) ASSERT_TRUE(watch.read_line()) << frame;
    watch.send_signal(SIGINT);
    EXPECT_EQ(watch.wait(), 0);
    EXPECT_GE(audit_json(host)["samples"].get<int>(), 3);
}

}  // namespace
}  // namespace gpukill::testing

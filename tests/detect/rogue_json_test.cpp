// The --json document and the rogue_finding audit record: field names, nulls for the
// unknown, the cut of huge command lines, and the syslog summary of a finding.
#include "detect/rogue_json.hpp"

#include <syslog.h>

#include <gtest/gtest.h>

#include "audit/syslog_line.hpp"
#include "rogue_test_support.hpp"

namespace gpukill::detect {
namespace {

using rogue_test::process;

Assessment miner() {
    ProcessFacts facts;
    facts.holder.info =
        process("xmrig", "/opt/xmrig", {"./xmrig", "-o", "stratum+tcp://192.0.2.7:3333"});
    facts.holder.gpus.push_back({.gpu_index = 1, .memory_bytes = 256ull << 20});
    facts.network = NetworkFacts{};
    return assess(facts, default_rogue_config());
}

audit::Invocation who() {
    audit::Invocation invocation;
    invocation.host = "node7";
    invocation.user = "root";
    invocation.command = "gpukill audit --rogue";
    invocation.run_id = std::string(32, 'a');
    return invocation;
}

TEST(RogueJson, AssessmentFields) {
    const auto json = assessment_json(miner());
    EXPECT_EQ(json["pid"], 4242);
    EXPECT_EQ(json["start_time_ticks"], 123456);
    EXPECT_EQ(json["user"], "bob");
    EXPECT_EQ(json["uid"], 1001);
    EXPECT_EQ(json["name"], "xmrig");
    EXPECT_EQ(json["exe"], "/opt/xmrig");
    EXPECT_EQ(json["exe_deleted"], false);
    EXPECT_EQ(json["command"], "./xmrig -o stratum+tcp://192.0.2.7:3333");
    EXPECT_TRUE(json["container"].is_null());
    EXPECT_EQ(json["gpus"][0]["index"], 1);
    EXPECT_EQ(json["gpus"][0]["memory_bytes"], 256ull << 20);
    EXPECT_EQ(json["score"], 100);
    EXPECT_EQ(json["risk"], "critical");
    ASSERT_EQ(json["evidence"].size(), 2u);
    EXPECT_EQ(json["evidence"][0]["signal"], "miner_name");
    EXPECT_EQ(json["evidence"][0]["weight"], 60);
    EXPECT_TRUE(json["evidence"][0]["detail"].is_string());
    EXPECT_TRUE(json["allowed_by"].is_null());
    EXPECT_TRUE(json["notes"].is_array());
}

TEST(RogueJson, ReportDocument) {
    RogueReport report;
    report.findings.push_back(miner());
    report.processes_examined = 3;
    ReportContext context{.host = "node7",
                          .timestamp_unix_ms = 1764460206540,
                          .config_source = "built-in defaults",
                          .report_threshold = 40,
                          .window_hours = 24,
                          .history_available = false,
                          .history_note = "no usage history (x): shape not judged"};
    const auto json = report_json(report, context);
    EXPECT_EQ(json["schema_version"], 1);
    EXPECT_EQ(json["timestamp"], "2025-11-29T23:50:06.540Z");
    EXPECT_EQ(json["processes_examined"], 3);
    EXPECT_EQ(json["processes_not_fully_examined"], 0);
    EXPECT_EQ(json["usage_history"]["available"], false);
    EXPECT_EQ(json["usage_history"]["window_hours"], 24.0);
    EXPECT_EQ(json["findings"].size(), 1u);
    EXPECT_TRUE(json["allowed"].is_array());
}

TEST(RogueJson, FindingRecordAndItsSyslogLine) {
    const auto record = rogue_finding_record(who(), miner(), "/etc/gpukill/rogue.yaml");
    EXPECT_EQ(record["schema_version"], 1);
    EXPECT_EQ(record["event"], "rogue_finding");
    EXPECT_EQ(record["run_id"], std::string(32, 'a'));
    EXPECT_EQ(record["process"]["pid"], 4242);
    EXPECT_EQ(record["score"], 100);
    EXPECT_EQ(record["risk"], "critical");
    EXPECT_EQ(record["evidence"].size(), 2u);
    EXPECT_EQ(record["config_source"], "/etc/gpukill/rogue.yaml");
    EXPECT_EQ(audit::syslog_priority(record), LOG_WARNING);
    EXPECT_EQ(audit::syslog_line(record),
              "rogue_finding pid=4242 name=xmrig user=bob score=100 risk=critical "
              "signals=miner_name,stratum_url by=root uid=0 run_id=" +
                  std::string(32, 'a'));
}

TEST(RogueJson, ConfigInstalledRecord) {
    const auto record = rogue_config_installed_record(who(), "/etc/gpukill/rogue.yaml", "new.yaml");
    EXPECT_EQ(record["event"], "rogue_config_installed");
    EXPECT_EQ(record["path"], "/etc/gpukill/rogue.yaml");
    EXPECT_EQ(record["from"], "new.yaml");
    EXPECT_EQ(audit::syslog_priority(record), LOG_NOTICE);
    EXPECT_EQ(
        audit::syslog_line(record).rfind("rogue_config_installed path=/etc/gpukill/rogue.yaml "
                                         "from=new.yaml by=root",
                                         0),
        0u);
}

TEST(RogueJson, HugeCommandLinesAreCut) {
    ProcessInfo info = process("w", "/w", {"w", std::string(10000, 'a')});
    const std::string text = command_text(info);
    EXPECT_EQ(text.size(), kMaxCommandBytes);
    EXPECT_TRUE(text.ends_with("..."));
}

}  // namespace
}  // namespace gpukill::detect

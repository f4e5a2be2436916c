// How `gpukill audit` shows actions and history: one readable row per action record,
// including events this version does not know, and JSON documents with their header.
#include <gtest/gtest.h>

#include "cli/audit_actions_view.hpp"
#include "cli/audit_history_view.hpp"

namespace gpukill::cli {
namespace {

using Json = nlohmann::ordered_json;

TEST(DescribeAction, EachEventReadsAsOneRow) {
    const Json result = Json::parse(R"({"event":"result","user":"root","sudo_user":"alice",
        "target":{"pid":4242,"name":"python","user":"bob"},"outcome":"killed",
        "signals_sent":["SIGTERM","SIGKILL"]})");
    ActionRow row = describe_action(result);
    EXPECT_EQ(row.by, "alice (sudo)");
    EXPECT_EQ(row.action, "result");
    EXPECT_EQ(row.target, "4242 python (bob)");
    EXPECT_EQ(row.outcome, "killed (SIGTERM, SIGKILL)");

    const Json planned = Json::parse(R"({"event":"planned","user":"bob","aborted":false,
        "needs_batch_confirmation":true,"refusals":[],
        "targets":[{"pid":1,"name":"a"},{"pid":2,"name":"b"},{"pid":3,"name":"c"},{"pid":4,"name":"d"}]})");
    row = describe_action(planned);
    EXPECT_EQ(row.by, "bob");
    EXPECT_EQ(row.target, "4 targets: 1 a, 2 b, 3 c, ...");
    EXPECT_EQ(row.outcome, "preview (needs --batch)");

    const Json refused = Json::parse(
        R"({"event":"refused","user":"bob","pid":1,"argument":"1","name":"systemd","kind":"init"})");
    row = describe_action(refused);
    EXPECT_EQ(row.target, "1 systemd");
    EXPECT_EQ(row.outcome, "refused: init");

    const Json verified = Json::parse(
        R"({"event":"verified","user":"root","gpu":1,"memory_reclaimed_bytes":2147483648,"released":true,"soft_locked":false})");
    row = describe_action(verified);
    EXPECT_EQ(row.target, "GPU 1");
    EXPECT_EQ(row.outcome, "released 2.0 GiB");

    const Json soft = Json::parse(
        R"({"event":"verified","user":"root","gpu":0,"memory_reclaimed_bytes":0,"released":false,"soft_locked":true})");
    EXPECT_EQ(describe_action(soft).outcome, "soft-locked (reset the GPU)");
}

TEST(DescribeAction, UnknownEventsShowTheUsualFields) {
    const Json reset =
        Json::parse(R"({"event":"reset_result","user":"root","gpu":2,"outcome":"reset"})");
    const ActionRow row = describe_action(reset);
    EXPECT_EQ(row.action, "reset_result");
    EXPECT_EQ(row.target, "GPU 2");
    EXPECT_EQ(row.outcome, "reset");
}

TEST(AuditJson, EveryDocumentStartsWithTheSameHeader) {
    AuditScope scope{.kind = "actions",
                     .source = "/var/lib/gpukill/audit.jsonl",
                     .hours = 2,
                     .since_unix_ms = 1'764'460'800'000,
                     .until_unix_ms = 1'764'468'000'000,
                     .user = "alice"};
    const Json doc = actions_json(scope, {Json{{"event", "result"}}}, 2);
    EXPECT_EQ(doc["schema_version"], 1);
    EXPECT_EQ(doc["kind"], "actions");
    EXPECT_EQ(doc["source"], "/var/lib/gpukill/audit.jsonl");
    EXPECT_EQ(doc["source_available"], true);
    EXPECT_EQ(doc["window"]["hours"], 2.0);
    EXPECT_EQ(doc["window"]["since"], "2025-11-30T00:00:00.000Z");
    EXPECT_EQ(doc["window"]["until_unix_ms"], 1'764'468'000'000);
    EXPECT_EQ(doc["filters"]["user"], "alice");
    EXPECT_TRUE(doc["filters"]["process"].is_null());
    EXPECT_EQ(doc["skipped_lines"], 2);
    EXPECT_EQ(doc["records"].size(), 1u);
}

TEST(AuditJson, ProcessUsageFieldsUseUnitsAndNullForUnknown) {
    AuditScope scope{.kind = "processes", .source = "/s/usage.sqlite3"};
    history::ProcessUsage p;
    p.pid = 7;
    p.user = "alice";
    p.gpus = {0, 2};
    p.gpu_hours = 0.1 + 0.2;
    p.average_gpu_utilization_percent = 33.333333;
    history::SampleWeights weights;
    weights.instants = 3;
    weights.typical_interval_ms = 10'000;
    weights.cap_ms = 20'000;
    const Json doc = process_usage_json(scope, weights, {p});
    EXPECT_EQ(doc["samples"], 3);
    EXPECT_EQ(doc["sample_interval_seconds"], 10.0);
    EXPECT_EQ(doc["credit_cap_seconds"], 20.0);
    const Json& row = doc["processes"][0];
    EXPECT_EQ(row["gpus"], Json::array({0, 2}));
    EXPECT_EQ(row["gpu_hours"], 0.3);
    EXPECT_EQ(row["average_gpu_utilization_percent"], 33.3);
    EXPECT_TRUE(row["peak_memory_bytes"].is_null());
    EXPECT_TRUE(row["start_time"].is_null());
    EXPECT_TRUE(row["uid"].is_null());
}

}  // namespace
}  // namespace gpukill::cli

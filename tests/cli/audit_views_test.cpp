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
    const Json later =
        Json::parse(R"({"event":"gpu_drained","user":"root","gpu":2,"outcome":"drained"})");
    const ActionRow row = describe_action(later);
    EXPECT_EQ(row.action, "gpu_drained");
    EXPECT_EQ(row.target, "GPU 2");
    EXPECT_EQ(row.outcome, "drained");
}

// Resets and rogue findings used to show an empty TARGET and OUTCOME (issue 33): each
// now says what it was about and how it ended, from its documented fields (AUDIT.md).
TEST(DescribeAction, ResetsRogueFindingsAndTheGuardReadAsRows) {
    const Json planned = Json::parse(R"({"event":"reset_planned","user":"root","dry_run":false,
        "force":true,"decision":"reclaim_then_reset","gpus":[{"index":0},{"index":1}],
        "holders":[{"pid":5226}]})");
    ActionRow row = describe_action(planned);
    EXPECT_EQ(row.target, "GPUs 0, 1");
    EXPECT_EQ(row.outcome, "reclaim_then_reset, 1 holder");

    const Json refused = Json::parse(R"({"event":"reset_refused","user":"root","gpus":[1],
        "decision":"held","block":"holders","why":"2 processes hold GPU 1","holders":[5233,5234]})");
    row = describe_action(refused);
    EXPECT_EQ(row.target, "GPU 1");
    EXPECT_EQ(row.outcome, "refused: 2 processes hold GPU 1");

    const Json result = Json::parse(R"({"event":"reset_result","user":"root","gpu":0,
        "reset":{"succeeded":true,"failure":null},"memory_freed_bytes":4294967296,"verified":true})");
    row = describe_action(result);
    EXPECT_EQ(row.target, "GPU 0");
    EXPECT_EQ(row.outcome, "reset, verified, 4.0 GiB freed");
    const Json failed = Json::parse(R"({"event":"reset_result","user":"root","gpu":3,
        "reset":{"succeeded":false,"failure":"permission"},"verified":false})");
    EXPECT_EQ(describe_action(failed).outcome, "failed: permission");

    const Json finding = Json::parse(R"({"event":"rogue_finding","user":"root",
        "process":{"pid":24801,"name":"xmrig","user":"bob"},"score":100,"risk":"critical",
        "evidence":[{"signal":"miner_name","weight":60},{"signal":"stratum_url","weight":60}]})");
    row = describe_action(finding);
    EXPECT_EQ(row.target, "24801 xmrig (bob)");
    EXPECT_EQ(row.outcome, "score 100 (critical): miner_name, stratum_url");

    const Json guard = Json::parse(R"({"event":"guard_action","user":"root","mode":"enforce",
        "process":{"pid":77,"name":"train","user":"alice"},"action":"terminate","outcome":"terminated"})");
    row = describe_action(guard);
    EXPECT_EQ(row.target, "77 train (alice)");
    EXPECT_EQ(row.outcome, "terminate: terminated");

    for (const Json* record : {&planned, &refused, &result, &finding, &guard}) {
        const ActionRow each = describe_action(*record);
        EXPECT_FALSE(each.target.empty()) << record->dump();
        EXPECT_FALSE(each.outcome.empty()) << record->dump();
    }
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

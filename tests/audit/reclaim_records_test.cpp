// The reclaim flow's audit records, field by field (the schema in docs/AUDIT.md), and
// their round trip through the log file.
#include "audit/reclaim_records.hpp"

#include <gtest/gtest.h>

#include "../host/host_test_support.hpp"
#include "audit/audit_log.hpp"
#include "audit_test_support.hpp"

namespace gpukill::audit {
namespace {

using json = nlohmann::ordered_json;
using reclaim::Outcome;
using reclaim::RefusalKind;
using reclaim::TargetReason;

constexpr std::uint64_t kGiB = 1ULL << 30;
const TimePoint kWhen{std::chrono::milliseconds(1764460201123)};

reclaim::PlannedTarget trainer() {
    return reclaim::PlannedTarget{.identity = {4242, 123456},
                                  .name = "python",
                                  .user = "alice",
                                  .uid = 1000,
                                  .state = 'S',
                                  .reason = TargetReason::named_pid,
                                  .gpus = {0, 1},
                                  .memory_bytes = {{0, 4 * kGiB}}};
}

reclaim::PlannedTarget worker() {
    return reclaim::PlannedTarget{.identity = {4250, 123999},
                                  .name = "pt_data_worker",
                                  .user = "alice",
                                  .uid = std::nullopt,
                                  .state = '?',
                                  .reason = TargetReason::holds_same_gpu,
                                  .reason_detail = "child of 4242 holding GPU 0",
                                  .gpus = {0}};
}

reclaim::KillPlan plan_with_refusals() {
    reclaim::KillPlan plan;
    plan.targets = {trainer(), worker()};
    plan.refusals = {
        reclaim::Refusal{.pid = 1,
                         .argument = "1",
                         .name = "systemd",
                         .kind = RefusalKind::init,
                         .why = "PID 1 is never signalled",
                         .explicitly_named = false},
        reclaim::Refusal{.pid = 0,
                         .argument = "abc",
                         .kind = RefusalKind::invalid_pid,
                         .why = "\"abc\" is not a PID",
                         .explicitly_named = true},
    };
    plan.gpu_memory_used_before = {{0, 10 * kGiB}, {1, std::nullopt}};
    plan.gpu_memory_expected_release = {{0, 4 * kGiB}};
    return plan;
}

// The record without the envelope (tested in envelope_test), to compare bodies.
json body(json record) {
    for (const char* key :
         {"schema_version", "timestamp", "timestamp_unix_ms", "host", "user", "uid", "euid",
          "sudo_user", "sudo_uid", "gpukill_pid", "command", "run_id", "actor"}) {
        EXPECT_TRUE(record.contains(key)) << key;
        record.erase(key);
    }
    return record;
}

TEST(ReclaimRecords, PlannedListsTargetsRefusalsAndGpus) {
    const json record = planned_record(audit_test::test_invocation(), plan_with_refusals(), kWhen);
    EXPECT_EQ(record["timestamp"], "2025-11-29T23:50:01.123Z");
    EXPECT_EQ(body(record), json::parse(R"({
        "event": "planned", "aborted": true, "needs_batch_confirmation": false,
        "targets": [
          {"pid": 4242, "start_time_ticks": 123456, "name": "python", "user": "alice",
           "uid": 1000, "state": "S", "reason": "named_pid", "reason_detail": "",
           "gpus": [{"index": 0, "memory_bytes": 4294967296}, {"index": 1, "memory_bytes": null}]},
          {"pid": 4250, "start_time_ticks": 123999, "name": "pt_data_worker", "user": "alice",
           "uid": null, "state": null, "reason": "holds_same_gpu",
           "reason_detail": "child of 4242 holding GPU 0",
           "gpus": [{"index": 0, "memory_bytes": null}]}],
        "refusals": [
          {"pid": 1, "argument": "1", "name": "systemd", "kind": "init",
           "why": "PID 1 is never signalled", "explicitly_named": false},
          {"pid": null, "argument": "abc", "name": null, "kind": "invalid_pid",
           "why": "\"abc\" is not a PID", "explicitly_named": true}],
        "gpus": [
          {"index": 0, "memory_used_before_bytes": 10737418240,
           "memory_expected_release_bytes": 4294967296},
          {"index": 1, "memory_used_before_bytes": null, "memory_expected_release_bytes": null}]
    })"));
}

TEST(ReclaimRecords, PlanRecordsAreThePlanThenOneRefusedEach) {
    const auto records = plan_records(audit_test::test_invocation(), plan_with_refusals(), kWhen);
    ASSERT_EQ(records.size(), 3U);
    EXPECT_EQ(records[0]["event"], "planned");
    EXPECT_EQ(body(records[1]), json::parse(R"({
        "event": "refused", "pid": 1, "argument": "1", "name": "systemd", "kind": "init",
        "why": "PID 1 is never signalled", "explicitly_named": false, "plan_aborted": true})"));
    EXPECT_EQ(records[2]["kind"], "invalid_pid");
    EXPECT_TRUE(records[2]["pid"].is_null());
}

// A round's intents name the target and the one signal about to go out; what was
// delivered follows with the signals so far.
TEST(ReclaimRecords, EachSignalHasAnIntentThenASignalledWhenDelivered) {
    reclaim::ExecuteResult executed;
    executed.targets = {
        reclaim::TargetResult{.target = trainer()},
        reclaim::TargetResult{.target = worker()},
    };
    const std::vector<reclaim::SignalSend> round = {{0, SIGTERM}, {1, SIGTERM}, {1, SIGCONT}};
    const auto intents =
        signal_intent_records(audit_test::test_invocation(), round, executed, kWhen);
    ASSERT_EQ(intents.size(), 3U);
    json first = body(intents[0]);
    EXPECT_EQ(first["target"], target_json(trainer()));
    first.erase("target");
    EXPECT_EQ(first, json::parse(R"({"event": "signal_intent", "signal": "SIGTERM"})"));
    EXPECT_EQ(intents[1]["target"]["pid"], 4250);
    EXPECT_EQ(intents[2]["target"]["pid"], 4250);
    EXPECT_EQ(intents[2]["signal"], "SIGCONT");

    executed.targets[0].signals_sent = {"SIGTERM", "SIGKILL"};
    const auto delivered =
        signalled_records(audit_test::test_invocation(), {{0, SIGKILL}}, executed, kWhen);
    ASSERT_EQ(delivered.size(), 1U);
    json signalled = body(delivered[0]);
    EXPECT_EQ(signalled["target"], target_json(trainer()));
    signalled.erase("target");
    EXPECT_EQ(signalled, json::parse(R"({"event": "signalled", "signal": "SIGKILL",
        "signals_sent": ["SIGTERM", "SIGKILL"]})"));
}

TEST(ReclaimRecords, ResultsAreOnePerTargetInPlanOrder) {
    reclaim::ExecuteResult executed;
    executed.targets = {
        reclaim::TargetResult{.target = trainer(),
                              .outcome = Outcome::killed,
                              .signals_sent = {"SIGTERM", "SIGKILL"},
                              .seconds = 5.25},
        reclaim::TargetResult{
            .target = worker(), .outcome = Outcome::exited, .note = "exited before any signal"},
    };
    const auto records = result_records(audit_test::test_invocation(), executed, kWhen);
    ASSERT_EQ(records.size(), 2U);

    json killed = body(records[0]);
    killed.erase("target");
    EXPECT_EQ(killed, json::parse(R"({"event": "result", "outcome": "killed",
        "signals_sent": ["SIGTERM", "SIGKILL"], "elapsed_seconds": 5.25, "note": null})"));
    EXPECT_EQ(records[0]["target"]["pid"], 4242);

    EXPECT_EQ(records[1]["event"], "result");
    EXPECT_EQ(records[1]["target"]["pid"], 4250);
    EXPECT_EQ(records[1]["outcome"], "exited");
    EXPECT_EQ(records[1]["signals_sent"], json::array());
    EXPECT_EQ(records[1]["note"], "exited before any signal");
}

TEST(ReclaimRecords, VerifiedReportsMemoryReclaimedPerGpu) {
    const std::vector<reclaim::GpuRelease> releases = {
        reclaim::GpuRelease{.gpu = 0,
                            .memory_used_before = 10 * kGiB,
                            .memory_used_after = 6 * kGiB,
                            .memory_reclaimed_bytes = 4 * kGiB,
                            .seconds_to_release = 0.35,
                            .released = true},
        reclaim::GpuRelease{.gpu = 1, .soft_locked = true, .targets_still_holding = {4250}},
    };
    const auto records = verification_records(audit_test::test_invocation(), releases, kWhen);
    ASSERT_EQ(records.size(), 2U);
    EXPECT_EQ(body(records[0]), json::parse(R"({"event": "verified", "gpu": 0,
        "memory_used_before_bytes": 10737418240, "memory_used_after_bytes": 6442450944,
        "memory_reclaimed_bytes": 4294967296, "seconds_to_release": 0.35,
        "released": true, "soft_locked": false, "targets_still_holding": []})"));
    EXPECT_EQ(body(records[1]), json::parse(R"({"event": "verified", "gpu": 1,
        "memory_used_before_bytes": null, "memory_used_after_bytes": null,
        "memory_reclaimed_bytes": null, "seconds_to_release": null,
        "released": false, "soft_locked": true, "targets_still_holding": [4250]})"));
}

TEST(ReclaimRecords, RoundTripThroughTheLogFile) {
    host_test::TempDir tmp;
    auto log = AuditLog::open(tmp.path(), AuditLogOptions{.use_syslog = false});
    ASSERT_TRUE(log) << log.error().what;
    const auto who = audit_test::test_invocation();
    std::vector<json> written = plan_records(who, plan_with_refusals(), kWhen);
    written.push_back(result_record(who,
                                    reclaim::TargetResult{.target = trainer(),
                                                          .outcome = Outcome::survived,
                                                          .signals_sent = {"SIGTERM"},
                                                          .seconds = 5,
                                                          .note = "in uninterruptible sleep (D)"},
                                    kWhen));
    written.push_back(verified_record(who, reclaim::GpuRelease{.gpu = 0}, kWhen));
    for (const json& record : written) ASSERT_TRUE(log->append(record));

    const auto lines = audit_test::lines_of(audit_test::read_all(log->path()));
    ASSERT_EQ(lines.size(), written.size());
    for (std::size_t i = 0; i < lines.size(); ++i) {
        EXPECT_EQ(json::parse(lines[i]), written[i]) << lines[i];
        EXPECT_EQ(json::parse(lines[i])["schema_version"], kAuditSchemaVersion);
    }
}

}  // namespace
}  // namespace gpukill::audit

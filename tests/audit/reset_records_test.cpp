// The reset audit records and their syslog lines.
#include <syslog.h>

#include <gtest/gtest.h>

#include "audit/reset_records.hpp"
#include "audit/syslog_line.hpp"

namespace gpukill {
namespace {

audit::Invocation who() {
    audit::Invocation invocation;
    invocation.host = "node7";
    invocation.user = "root";
    invocation.command = "gpukill reset --gpu 0 --force";
    invocation.run_id = "0123456789abcdef0123456789abcdef";
    return invocation;
}

reclaim::ResetPlan plan_with_holder() {
    reclaim::ResetPlan plan;
    reclaim::ResetGpu gpu;
    gpu.index = 0;
    gpu.vendor = Vendor::nvidia;
    gpu.pci_bus_id = "0000:18:00.0";
    gpu.memory_used_before_bytes = 4ULL << 30;
    gpu.reset_with = {0};
    plan.gpus = {gpu};
    plan.groups = {{0}};
    reclaim::ResetHolder holder;
    holder.pid = 4242;
    holder.name = "python";
    holder.gpus = {0};
    plan.holders = {holder};
    plan.decision = reclaim::ResetDecision::held;
    plan.block = reclaim::ResetBlock::holders;
    plan.why = "1 process holds the GPU: PID 4242 python";
    return plan;
}

TEST(ResetRecords, PlannedCarriesTheDecisionGpusAndHolders) {
    auto record = audit::reset_planned_record(who(), plan_with_holder(), true);
    EXPECT_EQ(record["event"], "reset_planned");
    EXPECT_EQ(record["command"], "gpukill reset --gpu 0 --force");
    EXPECT_EQ(record["dry_run"], true);
    EXPECT_EQ(record["decision"], "held");
    EXPECT_EQ(record["block"], "holders");
    EXPECT_EQ(record["gpus"][0]["method"], "nvidia-smi");
    EXPECT_EQ(record["holders"][0]["pid"], 4242);
    EXPECT_EQ(audit::syslog_priority(record), LOG_INFO);
    EXPECT_NE(audit::syslog_line(record).find("gpus=0 decision=held holders=1"), std::string::npos)
        << audit::syslog_line(record);
}

TEST(ResetRecords, RefusedIsAWarningNamingTheHolders) {
    auto record = audit::reset_refused_record(who(), plan_with_holder(), "held", {4242});
    EXPECT_EQ(record["event"], "reset_refused");
    EXPECT_EQ(record["holders"], nlohmann::ordered_json::array({4242}));
    EXPECT_EQ(audit::syslog_priority(record), LOG_WARNING);
    EXPECT_NE(audit::syslog_line(record).find("holders=4242"), std::string::npos);
}

TEST(ResetRecords, ResultNestsTheToolRunAndKeepsTheInvocationCommand) {
    const auto plan = plan_with_holder();
    reclaim::ResetAttempt attempt;
    attempt.gpus = {0};
    attempt.command = {"/usr/bin/nvidia-smi", "-r", "-i", "00000000:18:00.0"};
    attempt.exit_status = 0;
    attempt.status = reclaim::interpret_nvidia_smi_exit(0);
    attempt.output = "GPU 00000000:18:00.0 was successfully reset.\n";
    reclaim::ResetCheck check{.gpu = 0,
                              .found = true,
                              .memory_used_after_bytes = 0,
                              .memory_judged = true,
                              .memory_free = true,
                              .ok = true,
                              .seconds_to_ok = 0.2};
    auto record = audit::reset_result_record(who(), plan.gpus[0], attempt, check);
    EXPECT_EQ(record["event"], "reset_result");
    EXPECT_EQ(record["command"], "gpukill reset --gpu 0 --force");
    EXPECT_EQ(record["reset"]["command"][0], "/usr/bin/nvidia-smi");
    EXPECT_EQ(record["reset"]["exit_status"], 0);
    EXPECT_EQ(record["reset"]["succeeded"], true);
    EXPECT_EQ(record["memory_freed_bytes"], 4ULL << 30);
    EXPECT_EQ(record["verified"], true);
    EXPECT_EQ(audit::syslog_priority(record), LOG_NOTICE);
    const std::string line = audit::syslog_line(record);
    EXPECT_NE(line.find("gpu=0 pci_bus_id=0000:18:00.0 method=nvidia-smi exit_status=0"),
              std::string::npos)
        << line;

    attempt.status = reclaim::interpret_nvidia_smi_exit(15);
    auto failed = audit::reset_result_record(who(), plan.gpus[0], attempt, std::nullopt);
    EXPECT_EQ(failed["reset"]["failure"], "lost");
    EXPECT_EQ(failed["verified"], false);
    EXPECT_EQ(failed["found"], nullptr);
    EXPECT_EQ(audit::syslog_priority(failed), LOG_WARNING);
}

TEST(ResetRecords, LongToolOutputKeepsItsEnd) {
    reclaim::ResetAttempt attempt;
    attempt.output = std::string(10000, 'x') + "the verdict";
    auto json = audit::reset_attempt_json(attempt);
    const std::string kept = json["output"];
    EXPECT_EQ(kept.size(), audit::kResetOutputBytes);
    EXPECT_TRUE(kept.ends_with("the verdict"));
}

}  // namespace
}  // namespace gpukill

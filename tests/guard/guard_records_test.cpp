// The guard's audit records and their syslog lines.
#include "guard/guard_records.hpp"

#include <syslog.h>

#include <gtest/gtest.h>

#include "audit/syslog_line.hpp"

namespace gpukill::guard {
namespace {

Decision a_decision() {
    return Decision{.identity = {4242, 777},
                    .name = "python3",
                    .user = "alice",
                    .uid = 1000,
                    .gpus = {0},
                    .rule_id = "users.alice.memory_limit",
                    .enforcement = {Action::terminate, std::chrono::minutes(5)},
                    .why = "alice's 2 processes use 12.0 GiB",
                    .verdict = Verdict::warn,
                    .warned_at_unix_ms = 1795996800000,
                    .acts_at_unix_ms = 1795997100000};
}

TEST(GuardRecords, AWarningNamesTheProcessRuleAndDeadline) {
    audit::Invocation who{.host = "node7", .user = "root", .run_id = "r1"};
    const Decision decision = a_decision();
    auto record = guard_warning_record(who, Mode::enforce, decision, {"/dev/pts/3"});
    EXPECT_EQ(record["event"], "guard_warning");
    EXPECT_EQ(record["user"], "root");  // who ran gpukill
    EXPECT_EQ(record["process"]["user"], "alice");
    EXPECT_EQ(record["process"]["start_time_ticks"], 777);
    EXPECT_EQ(record["rule"], "users.alice.memory_limit");
    EXPECT_EQ(record["acts_at"], "2026-11-30T00:05:00.000Z");
    EXPECT_EQ(record["delivered_to"], nlohmann::ordered_json({"/dev/pts/3"}));
    EXPECT_EQ(audit::syslog_priority(record), LOG_WARNING);
    EXPECT_EQ(audit::syslog_line(record),
              "guard_warning mode=enforce pid=4242 name=python3 user=alice "
              "rule=users.alice.memory_limit rule_action=terminate "
              "acts_at=2026-11-30T00:05:00.000Z by=root uid=0 run_id=r1");
}

TEST(GuardRecords, AnActionListsItsRulesAndOutcome) {
    audit::Invocation who{.host = "node7", .user = "root", .run_id = "r1"};
    const Decision decision = a_decision();
    auto record = guard_action_record(who, Mode::enforce, Verdict::terminate, {&decision},
                                      std::string("terminated"), std::nullopt);
    EXPECT_EQ(record["action"], "terminate");
    EXPECT_EQ(record["outcome"], "terminated");
    EXPECT_EQ(record["rules"][0]["rule"], "users.alice.memory_limit");
    EXPECT_EQ(audit::syslog_line(record),
              "guard_action mode=enforce pid=4242 name=python3 user=alice action=terminate "
              "rules=users.alice.memory_limit outcome=terminated by=root uid=0 run_id=r1");
    auto dry = guard_action_record(who, Mode::dry_run, Verdict::kill, {&decision}, std::nullopt,
                                   "dry run: nothing signalled");
    EXPECT_TRUE(dry["outcome"].is_null());
    EXPECT_EQ(dry["mode"], "dry-run");
}

}  // namespace
}  // namespace gpukill::guard

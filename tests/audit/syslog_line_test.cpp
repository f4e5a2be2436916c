// What reaches syslog: the one-line summary and its priority.
#include "audit/syslog_line.hpp"

#include <gtest/gtest.h>
#include <syslog.h>

namespace gpukill::audit {
namespace {

using json = nlohmann::ordered_json;

const json kInvoker = {{"user", "root"}, {"uid", 0}, {"sudo_user", "alice"}, {"run_id", "ab12"}};

json with_invoker(json record) {
    for (const auto& [key, value] : kInvoker.items()) record[key] = value;
    return record;
}

TEST(SyslogLine, SummarisesAResult) {
    const json record = with_invoker(
        {{"event", "result"},
         {"target", {{"pid", 4242}, {"name", "python"}, {"user", "bob"}, {"start_time_ticks", 9}}},
         {"outcome", "killed"},
         {"signals_sent", {"SIGTERM", "SIGKILL"}},
         {"elapsed_seconds", 5.25},
         {"note", nullptr}});
    EXPECT_EQ(syslog_line(record),
              "result pid=4242 name=python user=bob outcome=killed signals=SIGTERM,SIGKILL "
              "elapsed_seconds=5.25 by=root uid=0 sudo_user=alice run_id=ab12");
    EXPECT_EQ(syslog_priority(record), LOG_NOTICE);
}

TEST(SyslogLine, NamesAnActorOtherThanTheCommandLine) {
    json record = with_invoker({{"event", "result"},
                                {"target", {{"pid", 4242}, {"name", "python"}}},
                                {"outcome", "terminated"}});
    record["actor"] = {{"interface", "cli"}, {"name", "root"}, {"remote", nullptr}};
    EXPECT_EQ(syslog_line(record).find("via="), std::string::npos);
    record["actor"] = {{"interface", "agent"}, {"name", "ci"}, {"remote", "10.0.0.7:40112"}};
    EXPECT_NE(syslog_line(record).find(
                  "by=root uid=0 sudo_user=alice via=agent for=ci from=10.0.0.7:40112 run_id=ab12"),
              std::string::npos)
        << syslog_line(record);
}

TEST(SyslogLine, SummarisesAPlanWithItsPids) {
    json targets = json::array();
    for (int pid = 100; pid < 120; ++pid) targets.push_back({{"pid", pid}});
    const json record = {{"event", "planned"},
                         {"aborted", false},
                         {"needs_batch_confirmation", true},
                         {"targets", targets},
                         {"refusals", json::array({json::object()})}};
    EXPECT_EQ(syslog_line(record),
              "planned targets=20 pids=100,101,102,103,104,105,106,107,108,109,110,111,112,113,"
              "114,115,... refusals=1 aborted=false needs_batch_confirmation=true");
    EXPECT_EQ(syslog_priority(record), LOG_INFO);
    EXPECT_EQ(syslog_priority(json{{"event", "planned"}, {"aborted", true}}), LOG_WARNING);
}

TEST(SyslogLine, RefusalsAreWarnings) {
    const json record = {{"event", "refused"},
                         {"pid", nullptr},
                         {"argument", "-1"},
                         {"kind", "invalid_pid"},
                         {"why", "kill(-1) would signal every process"}};
    EXPECT_EQ(syslog_line(record),
              "refused argument=-1 kind=invalid_pid why=\"kill(-1) would signal every process\"");
    EXPECT_EQ(syslog_priority(record), LOG_WARNING);
}

// The intent goes to syslog as it goes to the file: before the signal.
TEST(SyslogLine, ASignalsIntentAndItsDeliveryNameTheSignal) {
    const json target = {{"pid", 4242}, {"name", "python"}, {"user", "alice"}};
    const json intent = {{"event", "signal_intent"}, {"target", target}, {"signal", "SIGKILL"}};
    EXPECT_EQ(syslog_line(intent), "signal_intent pid=4242 name=python user=alice signal=SIGKILL");
    EXPECT_EQ(syslog_priority(intent), LOG_INFO);
    const json delivered = {{"event", "signalled"},
                            {"target", target},
                            {"signal", "SIGKILL"},
                            {"signals_sent", {"SIGTERM", "SIGKILL"}}};
    EXPECT_EQ(syslog_line(delivered),
              "signalled pid=4242 name=python user=alice signal=SIGKILL signals=SIGTERM,SIGKILL");
}

TEST(SyslogLine, PrioritiesFollowWhatHappened) {
    EXPECT_EQ(syslog_priority({{"event", "signalled"}}), LOG_NOTICE);
    EXPECT_EQ(syslog_priority({{"event", "result"}, {"outcome", "survived"}}), LOG_WARNING);
    EXPECT_EQ(syslog_priority({{"event", "verified"}, {"released", true}}), LOG_NOTICE);
    EXPECT_EQ(syslog_priority({{"event", "verified"}, {"released", false}}), LOG_WARNING);
    EXPECT_EQ(syslog_priority({{"event", "verified"}, {"released", true}, {"soft_locked", true}}),
              LOG_WARNING);
    EXPECT_EQ(syslog_priority({{"event", "reset"}}), LOG_NOTICE);
    EXPECT_EQ(syslog_priority(json::array()), LOG_NOTICE);
}

TEST(SyslogLine, NoValueCanBreakTheLineOrForgeAField) {
    const json record = {{"event", "signalled"},
                         {"target", {{"pid", 7}, {"name", "evil\nrefused pid=1 \"x\"\\"}}}};
    EXPECT_EQ(syslog_line(record), "signalled pid=7 name=\"evil\\x0arefused pid=1 \\\"x\\\"\\\\\"");
}

// What a log viewer would show differently from the name a process has.
TEST(SyslogLine, C1ControlsBidiOverridesAndInvalidBytesAreQuotedAndEscaped) {
    const json c1 = {{"event", "signalled"},
                     {"target",
                      {{"pid", 7},
                       {"name",
                        "a\xc2\x9b"
                        "2J"}}}};
    EXPECT_EQ(syslog_line(c1), "signalled pid=7 name=\"a\\u009b2J\"");
    const json bidi = {{"event", "signalled"},
                       {"target", {{"pid", 7}, {"name", "x\xe2\x80\xaegpj"}}}};
    EXPECT_EQ(syslog_line(bidi), "signalled pid=7 name=\"x\\u202egpj\"");
    const json raw = {{"event", "signalled"}, {"target", {{"pid", 7}, {"name", "a\x9b"}}}};
    EXPECT_EQ(syslog_line(raw), "signalled pid=7 name=\"a\\x9b\"");
}

TEST(SyslogLine, LongLinesAreCutAtACharacterBoundary) {
    std::string name;
    for (int i = 0; i < 600; ++i) name += "\xce\xbb";  // two bytes each
    const std::string line =
        syslog_line({{"event", "signalled"}, {"target", {{"pid", 7}, {"name", name}}}});
    EXPECT_LE(line.size(), kMaxSyslogLineBytes);
    EXPECT_EQ(line.substr(line.size() - 3), "...");
    const std::string kept = line.substr(0, line.size() - 3);
    EXPECT_EQ(kept.substr(kept.size() - 2), "\xce\xbb");
}

}  // namespace
}  // namespace gpukill::audit

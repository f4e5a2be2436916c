// Reading the action log back: records in the window, filtered by who acted or whose
// process it was, by target name; bad and cut lines skipped and counted.
#include <gtest/gtest.h>

#include <sstream>

#include "../host/host_test_support.hpp"
#include "audit/action_log_reader.hpp"

namespace gpukill::audit {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::int64_t kT = 1'764'460'800'000;

std::string result_line(std::int64_t time, const std::string& target_user, const std::string& name,
                        const std::string& sudo_user = "") {
    Json record = {
        {"schema_version", 1},
        {"event", "result"},
        {"timestamp_unix_ms", time},
        {"user", "root"},
        {"uid", 0},
        {"sudo_user", sudo_user.empty() ? Json(nullptr) : Json(sudo_user)},
        {"sudo_uid", sudo_user.empty() ? Json(nullptr) : Json(1002)},
        {"target", {{"pid", 4242}, {"name", name}, {"user", target_user}, {"uid", 1000}}},
        {"outcome", "killed"}};
    return record.dump();
}

std::string planned_line(std::int64_t time) {
    Json record = {{"schema_version", 1},
                   {"event", "planned"},
                   {"timestamp_unix_ms", time},
                   {"user", "carol"},
                   {"uid", 1003},
                   {"aborted", false},
                   {"targets", Json::array({{{"pid", 1}, {"name", "xmrig"}, {"user", "dave"}}})},
                   {"refusals", Json::array()}};
    return record.dump();
}

ActionLog scan(const std::string& text, const ActionFilter& filter = {}) {
    std::istringstream in(text);
    auto log = scan_action_log(in, filter);
    if (!log) throw std::runtime_error(log.error().what);
    return *log;
}

TEST(ActionLogReader, BadAndCutLinesAreSkippedAndCounted) {
    const std::string text = result_line(kT, "alice", "python") + "\n" + "not json at all\n" +
                             "\n" +  // blank: neither a record nor skipped
                             "[1, 2, 3]\n" + R"({"event": "result"})" + "\n" +  // no timestamp
                             planned_line(kT + 1) + "\n" +
                             result_line(kT + 2, "bob", "llama").substr(0, 40);  // cut short
    const ActionLog log = scan(text);
    ASSERT_EQ(log.records.size(), 2u);
    EXPECT_EQ(log.records[0]["event"], "result");
    EXPECT_EQ(log.records[1]["event"], "planned");
    EXPECT_EQ(log.skipped_lines, 4u);
}

TEST(ActionLogReader, TheWindowIsHalfOpen) {
    const std::string text = result_line(kT - 1, "a", "p") + "\n" + result_line(kT, "a", "p") +
                             "\n" + result_line(kT + 10, "a", "p") + "\n";
    const ActionLog log = scan(text, {.since_unix_ms = kT, .until_unix_ms = kT + 10});
    ASSERT_EQ(log.records.size(), 1u);
    EXPECT_EQ(log.records[0]["timestamp_unix_ms"], kT);
}

TEST(ActionLogReader, UserMatchesWhoActedOrWhoseProcessItWasExactly) {
    const std::string text =
        result_line(kT, "alice", "python", "erin") + "\n" + planned_line(kT + 1) + "\n";
    auto users = [&](const std::string& user) { return scan(text, {.user = user}).records.size(); };
    EXPECT_EQ(users("alice"), 1u);  // the target's owner
    EXPECT_EQ(users("1000"), 1u);   // ... by uid
    EXPECT_EQ(users("erin"), 1u);   // who ran sudo
    EXPECT_EQ(users("1002"), 1u);   // ... by uid
    EXPECT_EQ(users("root"), 1u);   // who ran gpukill
    EXPECT_EQ(users("carol"), 1u);
    EXPECT_EQ(users("dave"), 1u);  // a planned target's owner
    EXPECT_EQ(users("ali"), 0u);
    EXPECT_EQ(users("0"), 1u);
}

TEST(ActionLogReader, ProcessPatternSearchesTargetNames) {
    const std::string text = result_line(kT, "alice", "python") + "\n" + planned_line(kT + 1) +
                             "\n" + R"({"event":"verified","timestamp_unix_ms":)" +
                             std::to_string(kT + 2) + R"(,"gpu":0})" + "\n";
    EXPECT_EQ(scan(text, {.process = *Pattern::compile("xmr")}).records.size(), 1u);
    EXPECT_EQ(scan(text, {.process = *Pattern::compile("^py")}).records.size(), 1u);
    EXPECT_EQ(scan(text, {.process = *Pattern::compile(".")}).records.size(),
              2u);  // not `verified`
    EXPECT_EQ(scan(text).records.size(), 3u);
}

TEST(ActionLogReader, AMissingFileIsENOENT) {
    host_test::TempDir dir;
    auto log = read_action_log(dir / "audit.jsonl", {});
    ASSERT_FALSE(log);
    EXPECT_EQ(log.error().errno_value, ENOENT);
    host_test::write_file(dir / "audit.jsonl", result_line(kT, "alice", "python") + "\n");
    auto read = read_action_log(dir / "audit.jsonl", {});
    ASSERT_TRUE(read);
    EXPECT_EQ(read->records.size(), 1u);
}

}  // namespace
}  // namespace gpukill::audit

#include "engine/request_json.hpp"

#include <gtest/gtest.h>

namespace gpukill::engine {
namespace {

using nlohmann::json;

TEST(KillRequestJson, ReadsEveryField) {
    auto request = kill_request_from_json(json::parse(R"({
        "pids": [42, "043"], "gpu": 1, "filter": "python", "user": "alice",
        "container": "abcd1234", "min_memory_bytes": 8589934592, "orphaned": true,
        "unlisted": true, "tree": true, "group": true, "batch": true, "any_process": true,
        "force": true, "dry_run": true, "signal": "SIGINT", "timeout_seconds": 2.5,
        "verify_timeout_seconds": 7, "plan_id": "0123456789abcdef"})"));
    ASSERT_TRUE(request) << request.error().what;
    EXPECT_EQ(request->selectors.pid_arguments, (std::vector<std::string>{"42", "043"}));
    EXPECT_EQ(request->gpu, "1");
    EXPECT_EQ(request->selectors.filter, "python");
    EXPECT_EQ(request->selectors.user, "alice");
    EXPECT_EQ(request->selectors.container, "abcd1234");
    EXPECT_EQ(request->selectors.min_memory_bytes, 8589934592ULL);
    EXPECT_TRUE(request->selectors.orphaned && request->selectors.unlisted &&
                request->selectors.tree && request->selectors.group && request->selectors.batch &&
                request->selectors.any_process);
    EXPECT_TRUE(request->force && request->dry_run);
    EXPECT_EQ(request->signal, "SIGINT");
    EXPECT_DOUBLE_EQ(request->timeout_seconds, 2.5);
    EXPECT_DOUBLE_EQ(request->verify_timeout_seconds, 7);
    EXPECT_EQ(request->expected_plan_id, "0123456789abcdef");
}

TEST(KillRequestJson, RoundTripsThroughItsOwnWriter) {
    KillRequest request;
    request.selectors.pid_arguments = {"7"};
    request.selectors.filter = "train";
    request.selectors.min_memory_bytes = 1024;
    request.selectors.batch = true;
    request.force = true;
    request.signal = "SIGKILL";
    request.timeout_seconds = 3;
    request.expected_plan_id = "00000000deadbeef";
    auto read = kill_request_from_json(kill_request_to_json(request));
    ASSERT_TRUE(read) << read.error().what;
    EXPECT_EQ(read->selectors.pid_arguments, request.selectors.pid_arguments);
    EXPECT_EQ(read->selectors.filter, request.selectors.filter);
    EXPECT_EQ(read->selectors.min_memory_bytes, request.selectors.min_memory_bytes);
    EXPECT_TRUE(read->selectors.batch);
    EXPECT_FALSE(read->selectors.tree);
    EXPECT_TRUE(read->force);
    EXPECT_EQ(read->signal, "SIGKILL");
    EXPECT_EQ(read->expected_plan_id, request.expected_plan_id);
}

// The huge and negative PIDs reach the plan's own gate as typed, to be refused there by
// name; nothing here wraps 4294967295 into -1.
TEST(KillRequestJson, KeepsHugeAndNegativePidsAsTypedForThePlanToRefuse) {
    auto request = kill_request_from_json(json::parse(R"({"pids": [4294967295, -1]})"));
    ASSERT_TRUE(request);
    EXPECT_EQ(request->selectors.pid_arguments, (std::vector<std::string>{"4294967295", "-1"}));
    EXPECT_FALSE(reclaim::parse_target_pid(request->selectors.pid_arguments[0], 4194304));
    EXPECT_FALSE(reclaim::parse_target_pid(request->selectors.pid_arguments[1], 4194304));
}

TEST(KillRequestJson, RefusesWhatItCannotReadExactly) {
    for (const char* body :
         {R"([1])", R"({"forse": true})", R"({"pids": 42})", R"({"pids": [1.5]})",
          R"({"pids": [true]})", R"({"force": "yes"})", R"({"gpu": -1})", R"({"gpu": [0]})",
          R"({"min_memory_bytes": -5})", R"({"min_memory_bytes": "8G"})",
          R"({"timeout_seconds": 99999})", R"({"timeout_seconds": -1})", R"({"plan_id": "XYZ"})",
          R"({"plan_id": "0123456789ABCDEF"})", R"({"signal": 9})"}) {
        auto request = kill_request_from_json(json::parse(body));
        ASSERT_FALSE(request) << body;
        EXPECT_EQ(request.error().category, ErrorCategory::invalid_input) << body;
        EXPECT_EQ(request.error().what.find('\n'), std::string::npos) << body;
    }
}

TEST(KillRequestJson, NamesTheUnknownField) {
    auto request = kill_request_from_json(json::parse(R"({"pid": [42]})"));
    ASSERT_FALSE(request);
    EXPECT_EQ(request.error().what, "unknown field 'pid'");
}

TEST(ResetRequestJson, ReadsAndRoundTrips) {
    auto request = reset_request_from_json(
        json::parse(R"({"gpus": "0,1", "force": true, "dry_run": true, "timeout_seconds": 4})"));
    ASSERT_TRUE(request) << request.error().what;
    EXPECT_EQ(request->gpus, "0,1");
    EXPECT_TRUE(request->force && request->dry_run);
    EXPECT_FALSE(request->all);
    auto again = reset_request_from_json(reset_request_to_json(*request));
    ASSERT_TRUE(again);
    EXPECT_EQ(again->gpus, "0,1");
    EXPECT_DOUBLE_EQ(again->timeout_seconds, 4);
}

TEST(ResetRequestJson, NeverTakesTheProgramToRunFromAClient) {
    auto request = reset_request_from_json(json::parse(R"({"nvidia_smi": "/tmp/evil"})"));
    ASSERT_FALSE(request);
    EXPECT_EQ(request.error().what, "unknown field 'nvidia_smi'");
}

}  // namespace
}  // namespace gpukill::engine

// The two phases of a fleet action, over a transport that records what it was asked.
#include <gtest/gtest.h>

#include <mutex>

#include "fleet/fleet_run.hpp"

namespace gpukill::fleet {
namespace {

class RecordingTransport : public Transport {
  public:
    std::map<std::string, HostReply> plans;  // host -> its plan's reply
    std::mutex mutex;
    std::vector<std::pair<std::string, std::string>> acted;  // host, plan id
    std::vector<std::string> calls;                          // host or "act HOST", in order
    bool expiring = false;

    HostReply call(const std::string& host, const RemoteCall& call) override {
        std::lock_guard lock(mutex);
        calls.push_back(call.acts ? "act " + host : host);
        if (!call.acts) return plans.at(host);
        const std::string id =
            call.http_body ? (*call.http_body)["plan_id"].get<std::string>() : "";
        acted.emplace_back(host, id);
        HostReply r;
        r.status = HostStatus::ok;
        r.result = {{"schema_version", 1}, {"executed", true}, {"plan_id", id}};
        return r;
    }
    const char* name() const override { return "recording"; }
    bool plans_expire() const override { return expiring; }
};

HostReply planned(const std::string& id, bool preview = false) {
    HostReply r;
    r.status = HostStatus::ok;
    r.result = {{"schema_version", 1}, {"plan_id", id}, {"preview", preview}, {"targets", {}}};
    return r;
}

HostReply unreachable() {
    HostReply r;
    r.status = HostStatus::unreachable;
    r.exit_code = kUnreachableExit;
    r.error = "down";
    return r;
}

FleetRequest kill_request(std::optional<std::size_t> max_failures = std::nullopt) {
    FleetRequest request;
    request.command = "kill";
    request.call.arguments = {"kill", "--dry-run", "--json"};
    request.execute = [](const std::string& id) {
        RemoteCall act;
        act.acts = true;
        act.http_body = nlohmann::ordered_json{{"plan_id", id}};
        return act;
    };
    request.max_failures = max_failures;
    return request;
}

TEST(FleetRun, EachHostActsOnItsOwnPlanAndUnreachableOnesAreReported) {
    RecordingTransport t;
    t.plans = {{"a", planned("00000000000000aa")},
               {"b", unreachable()},
               {"c", planned("00000000000000cc")}};
    FleetResult result = run_fleet(t, {"a", "b", "c"}, kill_request());
    std::sort(t.acted.begin(), t.acted.end());
    EXPECT_EQ(t.acted, (std::vector<std::pair<std::string, std::string>>{
                           {"a", "00000000000000aa"}, {"c", "00000000000000cc"}}));
    EXPECT_TRUE(result.hosts[0].acted);
    EXPECT_FALSE(result.hosts[1].acted);
    EXPECT_EQ(result.hosts[1].reply.error, "down");
    EXPECT_EQ(result.summary.succeeded, 2u);
    EXPECT_EQ(result.summary.unreachable, 1u);
    EXPECT_EQ(result.exit_code, kUnreachableExit);
}

TEST(FleetRun, APreviewOrTooManyFailuresActsOnNoHost) {
    RecordingTransport preview;
    preview.plans = {{"a", planned("1", true)}, {"b", planned("2", true)}};
    FleetResult shown = run_fleet(preview, {"a", "b"}, kill_request());
    EXPECT_TRUE(preview.acted.empty());
    EXPECT_TRUE(shown.preview_only);
    EXPECT_EQ(shown.exit_code, 2);

    RecordingTransport failing;
    failing.plans = {{"a", planned("1")}, {"b", unreachable()}, {"c", unreachable()}};
    FleetResult stopped = run_fleet(failing, {"a", "b", "c"}, kill_request(1));
    EXPECT_TRUE(failing.acted.empty());
    ASSERT_TRUE(stopped.stop);
    EXPECT_NE(stopped.stop->find("more than --max-failures 1"), std::string::npos);

    RecordingTransport within;
    within.plans = {{"a", planned("1")}, {"b", unreachable()}};
    run_fleet(within, {"a", "b"}, kill_request(1));
    EXPECT_EQ(within.acted.size(), 1u);
}

// Through the agent a plan id confirms only a plan shown lately (docs/AGENT.md): each host
// shows its plan again right before it is acted on, however long the fleet took to plan.
TEST(FleetRun, WherePlansExpireEachHostPlansAgainJustBeforeItActs) {
    RecordingTransport agent;
    agent.expiring = true;
    agent.plans = {{"a", planned("00000000000000aa")}};
    run_fleet(agent, {"a"}, kill_request());
    EXPECT_EQ(agent.calls, (std::vector<std::string>{"a", "a", "act a"}));

    RecordingTransport ssh;
    ssh.plans = {{"a", planned("00000000000000aa")}};
    run_fleet(ssh, {"a"}, kill_request());
    EXPECT_EQ(ssh.calls, (std::vector<std::string>{"a", "act a"}));
}

}  // namespace
}  // namespace gpukill::fleet

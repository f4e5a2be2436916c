// `gpukill mcp` over stdio stopped in the middle of a kill: SIGTERM (an assistant or a
// service manager stopping its server) once ended it on the spot, mid-wait, with only the
// plan in the audit log. Now the kill stops waiting, records its result, is answered,
// and the server exits 0. A real server on a FIFO for stdin, a real gpusim workload.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support.hpp"

namespace gpukill::testing {
namespace {

using nlohmann::json;

// One JSON-RPC message per line to the server's stdin.
bool send_line(int fd, const json& message) {
    const std::string line = message.dump() + "\n";
    return ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
}

// The server's next message with id `id`, skipping its log lines (stderr is read along).
std::optional<json> answer_to(RunningCommand& server, int id, double timeout_seconds = 20) {
    while (auto line = server.read_line(timeout_seconds)) {
        json message = json::parse(*line, nullptr, false);
        if (!message.is_discarded() && message.value("id", -1) == id) return message;
    }
    return std::nullopt;
}

json tool_call(int id, const std::string& name, const json& arguments) {
    return json{{"jsonrpc", "2.0"},
                {"id", id},
                {"method", "tools/call"},
                {"params", {{"name", name}, {"arguments", arguments}}}};
}

TEST(McpStdio, SigtermDuringAKillRecordsItsResultAnswersAndExitsCleanly) {
    SimulatedHost host;
    Workload stubborn = host.run({"--gpu", "0", "--mem", "1G", "--ignore-term"});
    const std::string dir = std::filesystem::path(host.root()).parent_path().string();
    const std::string input = dir + "/mcp-stdin";
    ASSERT_EQ(::mkfifo(input.c_str(), 0600), 0);
    // Read and write: opening never waits for the server, and its end of input never comes
    // while the test holds it.
    const int to_server = ::open(input.c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_GE(to_server, 0);
    RunningCommand server(
        {"/bin/sh", "-c", "exec \"$0\" mcp --allow-actions < \"$1\" 2>&1", GPUKILL_BIN, input},
        host.env());

    ASSERT_TRUE(send_line(to_server, json::parse(R"({"jsonrpc":"2.0","id":1,"method":"initialize",
        "params":{"protocolVersion":"2025-06-18","capabilities":{},
        "clientInfo":{"name":"stop-test","version":"1"}}})")));
    ASSERT_TRUE(answer_to(server, 1)) << "no answer to initialize";
    ASSERT_TRUE(
        send_line(to_server, {{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}));
    ASSERT_TRUE(send_line(
        to_server,
        tool_call(2, "plan_kill", {{"pids", {stubborn.pid()}}, {"timeout_seconds", 60}})));
    const auto planned = answer_to(server, 2);
    ASSERT_TRUE(planned) << "no answer to plan_kill";
    const json& plan = (*planned)["result"]["structuredContent"];
    ASSERT_TRUE(plan.contains("plan_id")) << planned->dump();
    ASSERT_TRUE(
        send_line(to_server, tool_call(3, "execute_kill_plan", {{"plan_id", plan["plan_id"]}})));

    ASSERT_TRUE(wait_for_audit_record(host, "signalled", stubborn.pid()))
        << "the kill never sent its SIGTERM";
    server.send_signal(SIGTERM);  // the kill now waits up to 60 s

    const auto executed = answer_to(server, 3, 10);
    ASSERT_TRUE(executed) << "the kill in progress was not answered";
    const json& outcome = (*executed)["result"]["structuredContent"];
    EXPECT_EQ(outcome["exit_code"], 130) << executed->dump();
    EXPECT_EQ(outcome["targets"][0]["outcome"], "survived") << executed->dump();
    EXPECT_EQ(server.wait(), 0) << "SIGTERM ends the server cleanly";
    ::close(to_server);
    EXPECT_TRUE(process_alive(stubborn.pid())) << "nothing more was sent";

    std::vector<std::string> events;
    for (const json& record : audit_records_about(host, stubborn.pid())) {
        events.push_back(record["event"]);
        EXPECT_EQ(record["actor"]["interface"], "mcp") << record.dump();
    }
    EXPECT_EQ(events, (std::vector<std::string>{"signal_intent", "signalled", "result"}));
}

// Waiting for its next message, the server ends at once on SIGTERM, exit 0.
TEST(McpStdio, SigtermWhileIdleEndsTheServerCleanly) {
    SimulatedHost host;
    const std::string dir = std::filesystem::path(host.root()).parent_path().string();
    const std::string input = dir + "/mcp-idle-stdin";
    ASSERT_EQ(::mkfifo(input.c_str(), 0600), 0);
    const int to_server = ::open(input.c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_GE(to_server, 0);
    RunningCommand server({"/bin/sh", "-c", "exec \"$0\" mcp < \"$1\" 2>&1", GPUKILL_BIN, input},
                          host.env());
    ASSERT_TRUE(send_line(to_server, {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "ping"}}));
    ASSERT_TRUE(answer_to(server, 1)) << "no answer to ping";
    server.send_signal(SIGTERM);
    bool said_why = false;
    while (auto line = server.read_line(10))
        said_why |= line->find("SIGTERM: stopped") != std::string::npos;
    EXPECT_TRUE(said_why);
    EXPECT_EQ(server.wait(), 0);
    ::close(to_server);
}

}  // namespace
}  // namespace gpukill::testing

// `gpukill agent` as a real server over a simulated host: tokens and scopes, a kill
// through the API that ends a gpusim workload and gives its memory back (audited under
// the token's name and the peer's address), the listener's refusals and limits, TLS and
// mutual TLS with certificates made by openssl now, the policy reload, a clean stop.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "agent_support.hpp"
#include "notify_socket.hpp"

namespace gpukill::testing {
namespace {

using nlohmann::json;

json body_of(const httplib::Result& result) {
    if (!result) return json();
    return json::parse(result->body, nullptr, false);
}

std::string scratch_dir(const SimulatedHost& host, const std::string& name) {
    const std::string dir = std::filesystem::path(host.root()).parent_path().string() + "/" + name;
    std::filesystem::create_directories(dir);
    return dir;
}

TEST(Agent, TokensAndScopesGuardTheApiAndAKillThroughItEndsTheWorkload) {
    SimulatedHost host;
    const std::string tokens = write_token_file(scratch_dir(host, "secrets"));
    Workload job = host.run({"--gpu", "0", "--mem", "1G", "--name", "trainer"});
    RunningAgent agent(host, {"--token-file", tokens, "--interval", "0.2"});
    httplib::Client client = agent.client();

    // Health and metrics are open on loopback; everything else needs a token.
    EXPECT_EQ(client.Get("/healthz")->status, 200);
    EXPECT_EQ(client.Get("/readyz")->status, 200);
    EXPECT_EQ(client.Get("/metrics")->status, 200);
    auto anonymous = client.Get("/v1/snapshot");
    ASSERT_TRUE(anonymous);
    EXPECT_EQ(anonymous->status, 401);
    EXPECT_EQ(body_of(anonymous)["error"]["category"], "unauthenticated");
    EXPECT_EQ(client.Get("/v1/snapshot", bearer("not-a-token-at-all-0123456789abcdef"))->status,
              401);

    auto version = client.Get("/v1/version", bearer(kViewerSecret));
    ASSERT_TRUE(version);
    EXPECT_EQ(version->status, 200);
    EXPECT_EQ(body_of(version)["schema_version"], 1);
    auto snapshot = client.Get("/v1/snapshot", bearer(kViewerSecret));
    ASSERT_EQ(snapshot->status, 200);
    bool listed = false;
    const json listing = body_of(snapshot);
    for (const json& process : listing["processes"]) listed |= process["pid"] == job.pid();
    EXPECT_TRUE(listed) << snapshot->body;

    const std::string request = json{{"pids", {job.pid()}}}.dump();
    auto refused = client.Post("/v1/kill/plan", bearer(kViewerSecret), request, "application/json");
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 403) << refused->body;
    EXPECT_EQ(body_of(refused)["error"]["category"], "permission");
    EXPECT_TRUE(process_alive(job.pid()));

    auto plan = client.Post("/v1/kill/plan", bearer(kAdminSecret), request, "application/json");
    ASSERT_EQ(plan->status, 200) << plan->body;
    const json planned = body_of(plan);
    EXPECT_EQ(planned["dry_run"], true);
    ASSERT_TRUE(planned.contains("plan_id"));
    EXPECT_TRUE(process_alive(job.pid())) << "a plan signals nothing";

    json stale = json{{"pids", {job.pid()}}, {"plan_id", "0000000000000000"}};
    auto conflict =
        client.Post("/v1/kill/execute", bearer(kAdminSecret), stale.dump(), "application/json");
    EXPECT_EQ(conflict->status, 409) << conflict->body;
    EXPECT_TRUE(process_alive(job.pid()));

    json confirm = json{{"pids", {job.pid()}}, {"plan_id", planned["plan_id"]}};
    auto done =
        client.Post("/v1/kill/execute", bearer(kAdminSecret), confirm.dump(), "application/json");
    ASSERT_EQ(done->status, 200) << done->body;
    const json outcome = body_of(done);
    EXPECT_EQ(outcome["exit_code"], 0) << done->body;
    EXPECT_EQ(outcome["targets"][0]["outcome"], "terminated") << done->body;
    EXPECT_EQ(outcome["gpus"][0]["released"], true) << done->body;
    EXPECT_EQ(outcome["gpus"][0]["memory_reclaimed_bytes"], 1ULL << 30) << done->body;
    EXPECT_FALSE(process_alive(job.pid()));

    // The audit records name the token and the peer.
    auto actions = client.Get("/v1/audit/actions", bearer(kViewerSecret));
    ASSERT_EQ(actions->status, 200) << actions->body;
    bool named = false;
    const json log = body_of(actions);
    for (const json& record : log["records"]) {
        const json& actor = record["actor"];
        if (actor["interface"] == "agent" && actor["name"] == "admin" &&
            actor["remote"].get<std::string>().rfind("127.0.0.1:", 0) == 0) {
            named = true;
        }
    }
    EXPECT_TRUE(named) << actions->body;
    EXPECT_EQ(client.Get("/v1/audit/actions?hourz=1", bearer(kViewerSecret))->status, 400);
    EXPECT_EQ(client.Get("/v1/kill/plan", bearer(kAdminSecret))->status, 405);
    EXPECT_EQ(client.Get("/v1/nothing", bearer(kViewerSecret))->status, 404);

    // The next sample counts what the API ended.
    std::string metrics;
    for (int i = 0; i < 100; ++i) {
        metrics = client.Get("/metrics")->body;
        if (metrics.find("gpukill_processes_ended_total{interface=\"agent\"," + hostname_label() +
                         "} 1") != std::string::npos)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));  // polled, bounded
    }
    EXPECT_NE(metrics.find("gpukill_processes_ended_total{interface=\"agent\"," + hostname_label() +
                           "} 1"),
              std::string::npos);
    EXPECT_NE(metrics.find("gpukill_reclaimed_bytes_total{interface=\"agent\"," + hostname_label() +
                           "} 1073741824"),
              std::string::npos)
        << metrics;

    agent.process().send_signal(SIGTERM);
    EXPECT_EQ(agent.process().wait(), 0);
}

TEST(Agent, RefusesToStartWhereItWouldBeUnsafe) {
    SimulatedHost host;
    CommandResult open = host.gpukill({"agent", "--listen", "0.0.0.0:0"});
    EXPECT_EQ(open.exit_code, 3) << open.err;
    EXPECT_NE(open.err.find("without TLS"), std::string::npos) << open.err;

    const std::string readable = write_token_file(scratch_dir(host, "loose"), 0644);
    CommandResult loose = host.gpukill({"agent", "--token-file", readable});
    EXPECT_EQ(loose.exit_code, 4) << loose.err;

    CommandResult bad = host.gpukill({"agent", "--listen", "localhost"});
    EXPECT_EQ(bad.exit_code, 3) << bad.err;
}

TEST(Agent, ForeignHostsOriginsOversizedAndStalledRequestsAreCutOff) {
    SimulatedHost host;
    const std::string tokens = write_token_file(scratch_dir(host, "secrets"));
    RunningAgent agent(host, {"--token-file", tokens, "--request-timeout", "1"});
    httplib::Client client = agent.client();

    httplib::Headers rebinding = bearer(kViewerSecret);
    rebinding.emplace("Host", "evil.example");
    EXPECT_EQ(client.Get("/v1/version", rebinding)->status, 403);
    httplib::Headers cross = bearer(kViewerSecret);
    cross.emplace("Origin", "http://evil.example");
    auto crossed = client.Get("/v1/version", cross);
    EXPECT_EQ(crossed->status, 403);
    EXPECT_FALSE(crossed->has_header("Access-Control-Allow-Origin"));

    const std::string huge(200 * 1024, 'x');
    auto oversized = client.Post("/v1/kill/plan", bearer(kAdminSecret), huge, "application/json");
    ASSERT_TRUE(oversized);
    EXPECT_EQ(oversized->status, 413);

    // A client that sends half a request and stalls is disconnected after the timeout.
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(agent.port()));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    const std::string partial = "GET /v1/version HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    ASSERT_EQ(::send(fd, partial.data(), partial.size(), 0), static_cast<ssize_t>(partial.size()));
    const auto start = std::chrono::steady_clock::now();
    // Answered with an error at most (cpp-httplib may say 400 or 408) and closed.
    std::string answer;
    bool closed = false;
    while (std::chrono::steady_clock::now() - start < std::chrono::seconds(10)) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 1000) <= 0) continue;
        char chunk[512];
        const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
        if (n <= 0) {
            closed = true;
            break;
        }
        answer.append(chunk, static_cast<std::size_t>(n));
    }
    EXPECT_TRUE(closed) << "not cut off within 10 s";
    // --request-timeout 1: the stalled read ends, then cpp-httplib's 5 s keep-alive wait
    // before it closes: about 6 s.
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(9));
    EXPECT_EQ(answer.find("HTTP/1.1 200"), std::string::npos) << answer;
    ::close(fd);
}

TEST(Agent, ServesTlsAndRequiresClientCertificatesWithAClientCa) {
    SimulatedHost host;
    const std::string dir = scratch_dir(host, "pki");
    const auto openssl = [&](const std::string& args) {
        CommandResult r =
            run_command({"/bin/sh", "-c", "cd '" + dir + "' && " GPUKILL_OPENSSL_BIN " " + args});
        ASSERT_EQ(r.exit_code, 0) << args << "\n" << r.err;
    };
    openssl(
        "req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=test-ca -keyout ca.key -out ca.crt");
    openssl("req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout server.key -out server.csr");
    std::ofstream(dir + "/san.ext") << "subjectAltName=IP:127.0.0.1,DNS:localhost\n";
    openssl(
        "x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 "
        "-extfile san.ext -out server.crt");
    openssl("req -newkey rsa:2048 -nodes -subj /CN=fleet -keyout client.key -out client.csr");
    openssl(
        "x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 -out "
        "client.crt");
    ::chmod((dir + "/server.key").c_str(), 0600);
    const std::string tokens = write_token_file(dir);

    RunningAgent agent(host,
                       {"--token-file", tokens, "--tls-cert", dir + "/server.crt", "--tls-key",
                        dir + "/server.key", "--tls-client-ca", dir + "/ca.crt"});
    {
        httplib::SSLClient client("127.0.0.1", agent.port(), dir + "/client.crt",
                                  dir + "/client.key");
        client.set_ca_cert_path((dir + "/ca.crt").c_str());
        client.enable_server_certificate_verification(true);
        auto answer = client.Get("/v1/version", bearer(kViewerSecret));
        ASSERT_TRUE(answer) << httplib::to_string(answer.error());
        EXPECT_EQ(answer->status, 200);
    }
    {
        httplib::SSLClient anonymous("127.0.0.1", agent.port());
        anonymous.set_ca_cert_path((dir + "/ca.crt").c_str());
        anonymous.enable_server_certificate_verification(true);
        EXPECT_FALSE(anonymous.Get("/v1/version", bearer(kViewerSecret)))
            << "no client certificate: no answer";
    }
    httplib::Client plain("127.0.0.1", agent.port());
    plain.set_read_timeout(5);
    auto cleartext = plain.Get("/healthz");
    EXPECT_TRUE(!cleartext || cleartext->status != 200) << "plain HTTP is not served";

    // A key others can read is refused.
    ::chmod((dir + "/server.key").c_str(), 0644);
    CommandResult loose = host.gpukill({"agent", "--listen", "127.0.0.1:0", "--tls-cert",
                                        dir + "/server.crt", "--tls-key", dir + "/server.key"});
    EXPECT_EQ(loose.exit_code, 3) << loose.err;
}

// Replaced whole (written aside, renamed over), as an editor or config management does.
void replace_file(const std::string& path, const std::string& text) {
    std::ofstream(path + ".new") << text;
    std::filesystem::rename(path + ".new", path);
}

TEST(Agent, ReloadsThePolicyOnSighupAndKeepsTheOldOneWhenTheNewIsBad) {
    SimulatedHost host;
    const std::string dir = scratch_dir(host, "config");
    const std::string tokens = write_token_file(dir);
    const std::string policy = dir + "/guard.yaml";
    std::ofstream(policy) << "mode: dry-run\ncheck_interval: 1s\n";
    RunningAgent agent(host, {"--token-file", tokens, "--policy", policy, "--interval", "0.2"});
    httplib::Client client = agent.client();
    EXPECT_EQ(body_of(client.Get("/v1/guard", bearer(kViewerSecret)))["mode"], "dry-run");

    replace_file(policy, "mode: enforce\ncheck_interval: 1s\n");
    agent.process().send_signal(SIGHUP);
    ASSERT_TRUE(agent.wait_for_line("reloaded (mode enforce)"));
    EXPECT_EQ(body_of(client.Get("/v1/guard", bearer(kViewerSecret)))["mode"], "enforce");

    replace_file(policy, "mode: sometimes\n");
    agent.process().send_signal(SIGHUP);
    ASSERT_TRUE(agent.wait_for_line("previous one stays in force"));
    const json status = body_of(client.Get("/v1/guard", bearer(kViewerSecret)));
    EXPECT_EQ(status["mode"], "enforce");
    EXPECT_EQ(status["enabled"], true);
    EXPECT_FALSE(status["recent_events"].empty());

    agent.process().send_signal(SIGTERM);
    EXPECT_EQ(agent.process().wait(), 0);
}

// A kill waiting out its timeout holds nothing the rest of the agent needs: /v1/snapshot
// and /healthz answer at once and systemd's watchdog keeps being notified. A kill once
// held the engine for its whole wait: /v1/snapshot timed out and WATCHDOG=1 stopped, so
// under the shipped unit (WatchdogSec=120) a long kill got the agent killed mid-way.
TEST(Agent, AKillWaitingOutItsTimeoutLeavesTheAgentServingAndNotifying) {
    SimulatedHost host;
    const std::string dir = scratch_dir(host, "secrets");
    NotifySocket notify(dir + "/notify.sock");
    ASSERT_TRUE(notify.ok()) << "cannot bind a unix datagram socket in " << dir;
    Workload stubborn = host.run({"--gpu", "0", "--mem", "1G", "--ignore-term"});
    // WATCHDOG=1 every 0.5 s, a sample every 0.2 s.
    RunningAgent agent(host,
                       {"--token-file", write_token_file(dir), "--interval", "0.2", "--no-guard"},
                       {{"NOTIFY_SOCKET", dir + "/notify.sock"}, {"WATCHDOG_USEC", "1000000"}});
    ASSERT_TRUE(notification_with(notify, "READY=1"));

    const json request = {{"pids", {stubborn.pid()}}, {"timeout_seconds", 20}};
    auto plan = agent.client().Post("/v1/kill/plan", bearer(kAdminSecret), request.dump(),
                                    "application/json");
    ASSERT_TRUE(plan && plan->status == 200) << (plan ? plan->body : "no answer");
    json confirm = request;
    confirm["plan_id"] = body_of(plan)["plan_id"];
    std::atomic<bool> answered = false;
    // httplib::Result has no empty state: filled by the killer thread.
    std::optional<httplib::Result> executed;
    std::jthread killer([&] {
        httplib::Client client = agent.client();
        client.set_read_timeout(60);
        executed.emplace(client.Post("/v1/kill/execute", bearer(kAdminSecret), confirm.dump(),
                                     "application/json"));
        answered = true;
    });
    ASSERT_TRUE(wait_for_audit_record(host, "signalled", stubborn.pid()))
        << "the kill never sent its SIGTERM";

    // Now the kill waits up to 20 s for a process that ignores SIGTERM.
    while (notify.receive(0)) {
    }  // what was sent before the wait began
    const auto timed_get = [&](const char* path, const char* secret) {
        httplib::Client client = agent.client();
        client.set_read_timeout(2);
        const auto start = std::chrono::steady_clock::now();
        auto got = secret != nullptr ? client.Get(path, bearer(secret)) : client.Get(path);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        EXPECT_TRUE(got && got->status == 200)
            << path << ": " << (got ? got->body : httplib::to_string(got.error()));
        EXPECT_LT(seconds, 2.0) << path;
        return got ? body_of(got) : json();
    };
    const json listing = timed_get("/v1/snapshot", kViewerSecret);
    bool listed = false;
    for (const json& process : listing["processes"]) listed |= process["pid"] == stubborn.pid();
    EXPECT_TRUE(listed) << "the snapshot taken during the kill shows its target";
    timed_get("/healthz", nullptr);
    int watchdogs = 0;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    while (watchdogs < 2 && std::chrono::steady_clock::now() < until) {
        auto next = notify.receive(1000);
        if (next && next->text.find("WATCHDOG=1") != std::string::npos) ++watchdogs;
    }
    EXPECT_EQ(watchdogs, 2) << "WATCHDOG=1 stopped while the kill waited";
    EXPECT_FALSE(answered) << "all of the above happened during the kill's wait";

    // The test ends its own workload; the kill sees it go and answers.
    stubborn.kill_all();
    killer.join();
    ASSERT_TRUE(executed && *executed) << (executed ? httplib::to_string(executed->error()) : "");
    EXPECT_EQ((*executed)->status, 200) << (*executed)->body;
    EXPECT_EQ(body_of(*executed)["targets"][0]["outcome"], "terminated") << (*executed)->body;

    agent.process().send_signal(SIGTERM);
    EXPECT_EQ(agent.process().wait(), 0);
}

}  // namespace
}  // namespace gpukill::testing

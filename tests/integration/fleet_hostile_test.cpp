// The fleet controller against hosts that lie, drip or flood: a fake agent on a
// loopback port (this test's own thread, answering raw HTTP) and a fake `ssh` first in
// PATH that prints what a hostile host would. What is checked is what a user sees: the
// command ends (within --command-timeout, or at once on SIGTERM), each bad answer is that
// host's error in the report (never an abort: exit 134, 139), nothing buffered past the
// reply limit, and no /gpukill-fleet-* control directory left behind.
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <thread>

#include "hostile_peer.hpp"

namespace gpukill::testing {
namespace {

constexpr const char* kFleetToken = "fleet-token-0123456789abcdefghijklmnopqrstuvwxyz";

// How the fake agent answers one request (after reading its head and body).
using Behaviour = std::function<void(int fd, const std::string& path)>;

void answer_json(int fd, int status, const std::string& body) {
    send_all(fd, fmt::format("HTTP/1.1 {} X\r\nContent-Type: application/json\r\nContent-Length: "
                             "{}\r\nConnection: close\r\n\r\n{}",
                             status, body.size(), body));
}

// One thread, one connection at a time, until destroyed. /v1/version answers a version;
// every other path goes to `behaviour`.
class FakeAgent {
  public:
    explicit FakeAgent(Behaviour behaviour) : behaviour_(std::move(behaviour)) {
        listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
            ::listen(listen_fd_, 16) != 0 ||
            ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
            throw std::runtime_error("fake agent: cannot listen");
        }
        port_ = ntohs(address.sin_port);
        thread_ = std::thread([this] { serve(); });
    }
    ~FakeAgent() {
        stop_ = true;
        thread_.join();
        ::close(listen_fd_);
    }
    int port() const { return port_; }
    std::string target() const { return "127.0.0.1:" + std::to_string(port_); }
    bool stopping() const { return stop_; }
    // Waits until a request for something other than the version has come.
    bool wait_for_call(double seconds) {
        std::unique_lock lock(mutex_);
        return called_cv_.wait_for(lock, std::chrono::duration<double>(seconds),
                                   [&] { return called_; });
    }
    std::string last_authorization() {
        std::lock_guard lock(mutex_);
        return authorization_;
    }

  private:
    void serve() {
        while (!stop_) {
            pollfd p{listen_fd_, POLLIN, 0};
            if (::poll(&p, 1, 100) <= 0) continue;
            PeerSocket client(
                ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
            if (!client) continue;
            PeerAnswer request = read_answer(client.get(), 5, "\r\n\r\n");
            // The body too, so that closing leaves nothing unread (which would reset the
            // connection under the answer).
            const std::size_t head_end = request.text.find("\r\n\r\n");
            const std::size_t length_at = request.text.find("Content-Length: ");
            if (head_end != std::string::npos && length_at != std::string::npos) {
                const std::size_t want =
                    head_end + 4 + std::stoul(request.text.substr(length_at + 16));
                while (request.text.size() < want) {
                    pollfd ready{client.get(), POLLIN, 0};
                    char chunk[4096];
                    const ssize_t n = ::poll(&ready, 1, 1000) > 0
                                          ? ::recv(client.get(), chunk, sizeof chunk, 0)
                                          : 0;
                    if (n <= 0) break;
                    request.text.append(chunk, static_cast<std::size_t>(n));
                }
            }
            const std::size_t space = request.text.find(' ');
            const std::string path =
                request.text.substr(space + 1, request.text.find(' ', space + 1) - space - 1);
            {
                std::lock_guard lock(mutex_);
                const std::size_t at = request.text.find("Authorization: ");
                if (at != std::string::npos) {
                    authorization_ = request.text.substr(at, request.text.find("\r\n", at) - at);
                }
            }
            if (path == "/v1/version") {
                answer_json(client.get(), 200, R"({"schema_version":1,"version":"0.1.0"})");
                continue;
            }
            {
                std::lock_guard lock(mutex_);
                called_ = true;
            }
            called_cv_.notify_all();
            behaviour_(client.get(), path);
        }
    }

    Behaviour behaviour_;
    int listen_fd_ = -1;
    int port_ = 0;
    std::atomic<bool> stop_{false};
    std::thread thread_;
    std::mutex mutex_;
    std::condition_variable called_cv_;
    bool called_ = false;
    std::string authorization_;
};

// Drips one byte of a never-ending answer every half second while the peer listens.
void drip(const FakeAgent& agent, int fd) {
    send_all(fd, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n");
    for (int i = 0; i < 240 && !agent.stopping(); ++i) {
        if (!send_all(fd, "X", 0.5)) return;
        if (read_answer(fd, 0.5).closed) return;
    }
}

class FleetHostile : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = peer_test_dir(host_, "fleet-hostile");
        token_ = dir_ + "/token";
        std::ofstream(token_) << kFleetToken << "\n";
        ::chmod(token_.c_str(), 0600);
        runtime_ = dir_ + "/runtime";
        std::filesystem::create_directories(runtime_);
        ::chmod(runtime_.c_str(), 0700);
    }
    std::vector<std::string> agent_argv(const std::string& target,
                                        std::vector<std::string> args) const {
        std::vector<std::string> argv = {GPUKILL_BIN};
        argv.insert(argv.end(), args.begin(), args.end());
        for (const std::string& a : {std::string("--remote"), target, std::string("--transport"),
                                     std::string("agent"), std::string("--agent-scheme"),
                                     std::string("http"), std::string("--token-file"), token_}) {
            argv.push_back(a);
        }
        return argv;
    }
    std::map<std::string, std::string> env() const {
        std::map<std::string, std::string> e = host_.env();
        e["XDG_RUNTIME_DIR"] = runtime_;
        return e;
    }
    // Control directories the fleet left in its runtime directory.
    std::size_t leftover_control_dirs() const {
        std::size_t count = 0;
        for (const auto& entry : std::filesystem::directory_iterator(runtime_)) {
            count += entry.path().filename().string().rfind("gpukill-fleet-", 0) == 0 ? 1 : 0;
        }
        return count;
    }

    SimulatedHost host_;
    std::string dir_;
    std::string token_;
    std::string runtime_;
};

// A host dripping its answer held the command for 120 s with --command-timeout 3.
TEST_F(FleetHostile, ADrippingAgentIsGivenUpAfterTheCommandTimeout) {
    FakeAgent agent([&](int fd, const std::string&) { drip(agent, fd); });
    const auto start = PeerClock::now();
    const CommandResult run = run_command(
        agent_argv(agent.target(), {"list", "--json", "--command-timeout", "3"}), env(), 30);
    const double seconds = std::chrono::duration<double>(PeerClock::now() - start).count();
    EXPECT_LT(seconds, 8) << "took " << seconds << " s";
    EXPECT_EQ(run.exit_code, 10) << run.out << run.err;
    const nlohmann::json doc = nlohmann::json::parse(run.out);
    EXPECT_EQ(doc["hosts"][0]["status"], "unreachable");
    EXPECT_NE(doc["hosts"][0]["error"].get<std::string>().find("--command-timeout"),
              std::string::npos);
}

// SIGTERM did not stop it either.
TEST_F(FleetHostile, SigtermStopsAReadThatIsWaitingOnAHost) {
    FakeAgent agent([&](int fd, const std::string&) { drip(agent, fd); });
    RunningCommand fleet(agent_argv(agent.target(), {"list", "--json", "--command-timeout", "60"}),
                         env());
    ASSERT_TRUE(agent.wait_for_call(30));
    const auto signalled = PeerClock::now();
    fleet.send_signal(SIGTERM);
    const int code = fleet.wait();
    const double seconds = std::chrono::duration<double>(PeerClock::now() - signalled).count();
    EXPECT_LT(seconds, 3) << "ended " << seconds << " s after SIGTERM";
    EXPECT_EQ(code, 130);
}

// A huge answer took the controller to 2 GB: it is read up to the limit, then dropped.
TEST_F(FleetHostile, AnEndlessAnswerIsCutOffAtTheReplyLimit) {
    std::atomic<std::size_t> delivered{0};
    FakeAgent agent([&](int fd, const std::string&) {
        send_all(fd,
                 "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: "
                 "chunked\r\n\r\n");
        const std::string chunk = http_chunk(1 << 20);
        for (int i = 0; i < 512 && send_all(fd, chunk, 3); ++i) delivered += chunk.size();
    });
    const CommandResult run = run_command(
        agent_argv(agent.target(), {"list", "--json", "--command-timeout", "60"}), env(), 60);
    const nlohmann::json doc = nlohmann::json::parse(run.out);
    EXPECT_NE(doc["hosts"][0]["error"].get<std::string>().find("too large"), std::string::npos)
        << doc.dump();
    // What the socket buffers hold besides: a few MiB at most.
    EXPECT_LT(delivered.load(), (16u << 20) + (16u << 20)) << delivered.load() << " bytes taken";
}

TEST_F(FleetHostile, BadlyTypedAgentAnswersAreThatHostsErrorNotACrash) {
    const std::string plan =
        R"({"schema_version":1,"plan_id":"p1","preview":false,"targets":[],"gpus":[]})";
    struct Case {
        const char* what;
        std::string plan_reply;
        std::string execute_reply;
        int execute_status;
    };
    const std::vector<Case> cases = {
        {"preview yes", R"({"schema_version":1,"plan_id":"p1","preview":"yes","targets":[]})", "",
         200},
        {"executed 1", plan, R"({"schema_version":1,"executed":1,"targets":[]})", 200},
        {"error message 5", plan, R"({"schema_version":1,"error":{"message":5}})", 409},
        {"deep", plan, std::string(150000, '[') + std::string(150000, ']'), 200},
    };
    for (const Case& c : cases) {
        FakeAgent agent([&](int fd, const std::string& path) {
            if (path == "/v1/kill/plan") {
                answer_json(fd, 200, c.plan_reply);
            } else {
                answer_json(fd, c.execute_status, c.execute_reply);
            }
        });
        const CommandResult run = run_command(
            agent_argv(agent.target(), {"kill", "--filter", "^x$", "--batch", "--json"}), env(),
            60);
        EXPECT_LT(run.exit_code, 128) << c.what << ": " << run.err;
        EXPECT_NE(run.exit_code, 0) << c.what;
        const nlohmann::json doc = nlohmann::json::parse(run.out);
        EXPECT_EQ(doc["hosts"][0]["status"], "failed") << c.what << ": " << doc.dump();
        EXPECT_TRUE(doc["hosts"][0]["result"].is_null()) << c.what;
        // And the same answers read as text.
        const CommandResult text = run_command(
            agent_argv(agent.target(), {"kill", "--filter", "^x$", "--batch"}), env(), 60);
        EXPECT_LT(text.exit_code, 128) << c.what << ": " << text.err;
    }
    FakeAgent deep_list([&](int fd, const std::string&) {
        answer_json(fd, 200, std::string(150000, '[') + std::string(150000, ']'));
    });
    for (const char* output : {"--json", "--details"}) {
        const CommandResult list =
            run_command(agent_argv(deep_list.target(), {"list", output}), env(), 60);
        EXPECT_EQ(list.exit_code, 1) << list.out << list.err;
        EXPECT_NE((list.out + list.err).find("nested deeper"), std::string::npos) << list.out;
    }
}

// Over SSH too, where each crash left a gpukill-fleet-* control directory behind.
TEST_F(FleetHostile, BadRemoteDocumentsOverSshLeaveNoControlDirectory) {
    const std::string bin = dir_ + "/bin";
    std::filesystem::create_directories(bin);
    const std::string fake_ssh = bin + "/ssh";
    std::ofstream(fake_ssh) << R"(#!/bin/sh
# A hostile host: prints the document in $FAKE_PLAN or $FAKE_EXECUTE (with --plan-id).
for last; do :; done
case "$last" in *--version*) echo "gpukill 0.1.0"; exit 0;; esac
case " $* " in *" -O exit "*) exit 0;; esac
case "$last" in *--plan-id*) cat "$FAKE_EXECUTE";; *) cat "$FAKE_PLAN";; esac
exit "${FAKE_EXIT:-0}"
)";
    ::chmod(fake_ssh.c_str(), 0755);
    const auto write = [&](const std::string& name, const std::string& text) {
        std::ofstream(dir_ + "/" + name) << text;
        return dir_ + "/" + name;
    };
    const std::string plan = R"({"schema_version":1,"plan_id":"p1","preview":false,"targets":[]})";
    struct Case {
        const char* what;
        std::vector<std::string> args;
        std::string plan_doc;
        std::string execute_doc;
        std::string exit;
    };
    const std::vector<Case> cases = {
        {"error message 5", {"list"}, R"({"schema_version":1,"error":{"message":5}})", "", "3"},
        {"preview yes",
         {"kill", "--filter", "^x$", "--batch"},
         R"({"schema_version":1,"plan_id":"p1","preview":"yes","targets":[]})",
         "",
         "0"},
        {"executed 1",
         {"kill", "--filter", "^x$", "--batch"},
         plan,
         R"({"schema_version":1,"executed":1,"targets":[]})",
         "0"},
        {"deep list", {"list"}, std::string(150000, '[') + std::string(150000, ']'), "", "0"},
    };
    for (const Case& c : cases) {
        std::map<std::string, std::string> e = env();
        e["PATH"] = bin + ":" + std::string(std::getenv("PATH"));
        e["FAKE_PLAN"] = write("plan.json", c.plan_doc);
        e["FAKE_EXECUTE"] = write("execute.json", c.execute_doc);
        e["FAKE_EXIT"] = c.exit;
        for (bool as_json : {true, false}) {
            std::vector<std::string> argv = {GPUKILL_BIN};
            argv.insert(argv.end(), c.args.begin(), c.args.end());
            argv.insert(argv.end(), {"--remote", "node1", "--accept-new-host-keys"});
            if (as_json) argv.push_back("--json");
            const CommandResult run = run_command(argv, e, 60);
            EXPECT_LT(run.exit_code, 128) << c.what << ": " << run.err;
            EXPECT_NE(run.exit_code, 0) << c.what << ": " << run.out;
            EXPECT_EQ(leftover_control_dirs(), 0u) << c.what;
        }
    }
}

// Decided on the resolved address, never the name: 127.0.0.1.attacker.test resolves (in
// this test's own mount and network namespaces, through its /etc/hosts) to 10.99.0.1,
// where a listener of the test's own waits. Plain HTTP is refused before connecting.
TEST_F(FleetHostile, PlainHttpToANameThatOnlyLooksLikeLoopbackSendsNoToken) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root for its own mount and network namespaces";
    const std::string hosts = dir_ + "/hosts";
    std::ofstream(hosts) << "127.0.0.1 localhost\n10.99.0.1 127.0.0.1.attacker.test\n";
    int report[2];
    ASSERT_EQ(::pipe2(report, O_CLOEXEC), 0);
    const pid_t child = ::fork();
    if (child == 0) {
        ::close(report[0]);
        const auto say = [&](const std::string& text) {
            [[maybe_unused]] ssize_t n = ::write(report[1], text.data(), text.size());
            _exit(0);
        };
        if (::unshare(CLONE_NEWNS | CLONE_NEWNET) != 0) say("skip: unshare failed");
        if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
            ::mount(hosts.c_str(), "/etc/hosts", nullptr, MS_BIND, nullptr) != 0) {
            say("skip: mounts failed");
        }
        if (std::system("ip link set lo up && ip addr add 10.99.0.1/32 dev lo") != 0)
            say("skip: ip failed");
        const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(9402);
        inet_pton(AF_INET, "10.99.0.1", &address.sin_addr);
        if (::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
            ::listen(listener, 4) != 0) {
            say("skip: cannot listen on 10.99.0.1");
        }
        std::vector<std::string> argv =
            agent_argv("127.0.0.1.attacker.test:9402", {"list", "--json"});
        std::map<std::string, std::string> environment = env();
        const CommandResult run = run_command(argv, environment, 30);
        // Whatever reached the listener, and what the command said.
        std::string received;
        const int accepted = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
        if (accepted >= 0) received = read_answer(accepted, 2, "\r\n\r\n").text;
        say(fmt::format("exit {}\nreceived {}\n{}", run.exit_code, received, run.out));
    }
    ::close(report[1]);
    PeerAnswer told;  // what the child wrote, until it exits (a pipe: read(), not recv())
    char chunk[4096];
    for (ssize_t n; (n = ::read(report[0], chunk, sizeof chunk)) > 0;) {
        told.text.append(chunk, static_cast<std::size_t>(n));
    }
    ::close(report[0]);
    int status = 0;
    ::waitpid(child, &status, 0);
    if (told.text.rfind("skip:", 0) == 0) GTEST_SKIP() << told.text;
    ASSERT_FALSE(told.text.empty()) << "the namespace child ended with status " << status;
    EXPECT_EQ(told.text.find("Authorization"), std::string::npos) << told.text;
    EXPECT_NE(told.text.find("received \n"), std::string::npos)
        << "a connection reached 10.99.0.1:\n"
        << told.text;
    EXPECT_NE(told.text.find("resolves to 10.99.0.1"), std::string::npos) << told.text;
}

// 40 lines of nXX[1-99999] were 4 million hosts before anything was checked.
TEST_F(FleetHostile, AHostsFileOfMillionsOfNamesIsRefusedAtOnce) {
    const std::string file = dir_ + "/hosts.txt";
    {
        std::ofstream out(file);
        for (int i = 10; i < 50; ++i) out << "n" << i << "[1-99999]\n";
    }
    const auto start = PeerClock::now();
    // Two lines are expanded before the count passes the cap (10 s in an ASan build);
    // all forty would take minutes, and then a connection to each.
    const CommandResult run = run_command({GPUKILL_BIN, "list", "--hosts-file", file}, env(), 90);
    EXPECT_LT(std::chrono::duration<double>(PeerClock::now() - start).count(), 60);
    EXPECT_EQ(run.exit_code, 3) << run.err;
    EXPECT_EQ(run.err,
              "gpukill: " + file +
                  ":2: more than 100000 hosts in all (the most one fleet command reaches)\n");
}

TEST_F(FleetHostile, EscapeSequencesInHostNamesNeverReachTheTerminal) {
    for (const std::string& name :
         {std::string("\x1b]0;owned\x07node1"), std::string("node\x1b[2J1:9402")}) {
        const CommandResult run = run_command({GPUKILL_BIN, "list", "--remote", name}, env(), 30);
        EXPECT_EQ(run.exit_code, 3) << run.err;
        EXPECT_EQ((run.out + run.err).find('\x1b'), std::string::npos) << run.err;
        EXPECT_NE(run.err.find("\\x1b"), std::string::npos) << run.err;
    }
}

}  // namespace
}  // namespace gpukill::testing

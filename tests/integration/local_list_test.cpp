// `gpukill list` on a host whose agent runs: answered by the agent over its root-only
// local channel (docs/AGENT.md, "The local channel") with the very holders a sweep finds,
// narrowed by the same selectors, recorded once (by the agent); and swept here whenever
// the agent cannot answer: --no-agent, an agent that stopped, a caller it does not serve,
// an answer that is broken, late or from a socket that is not root's.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "agent_support.hpp"
#include "engine/local_channel.hpp"
#include "fake_local_agent.hpp"
#include "history/usage_store.hpp"
#include "support.hpp"

namespace gpukill::testing {
namespace local_list_test {
namespace {

using nlohmann::json;

std::string scratch_dir(const SimulatedHost& host, const std::string& name) {
    const std::string dir = std::filesystem::path(host.root()).parent_path().string() + "/" + name;
    std::filesystem::create_directories(dir);
    return dir;
}

std::string state_of(const SimulatedHost& host) {
    return host.env().at("GPUKILL_STATE_DIR");
}

// What a listing says of each holder that a person or a script acts on: who it is, what
// it is, which GPUs it holds and how that was seen, which device files.
using Holder = std::tuple<pid_t, std::string, bool, std::string, std::string>;
std::set<Holder> holders_of(const json& listing) {
    std::set<Holder> holders;
    for (const json& process : listing["processes"]) {
        holders.emplace(process["pid"].get<pid_t>(), process["role"].get<std::string>(),
                        process["orphaned"].get<bool>(), process["gpus"].dump(),
                        process["device_files"].dump());
    }
    return holders;
}

// Per GPU, what a listing counts: workloads and observers.
std::vector<std::pair<int, int>> counts_of(const json& listing) {
    std::vector<std::pair<int, int>> counts;
    for (const json& gpu : listing["gpus"]) {
        counts.emplace_back(gpu["process_count"].get<int>(), gpu["observer_count"].get<int>());
    }
    return counts;
}

json listed(const SimulatedHost& host, const std::vector<std::string>& args,
            std::string* err = nullptr) {
    std::vector<std::string> full = {"list", "--json"};
    full.insert(full.end(), args.begin(), args.end());
    CommandResult r = host.gpukill(full);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    if (err != nullptr) *err = r.err;
    return json::parse(r.out, nullptr, false);
}

std::size_t gpu_samples(const SimulatedHost& host) {
    auto store = history::UsageStore::open_read_only(state_of(host));
    if (!store) return 0;
    auto samples = (*store)->gpu_samples({});
    return samples ? samples->size() : 0;
}

TEST(LocalList, TheRunningAgentAnswersWithTheHoldersASweepFinds) {
    if (::geteuid() != 0) GTEST_SKIP() << "the local channel is root's";
    SimulatedHost host;
    Workload persistenced = host.observe({"--name", "nvidia-persistenced"});
    Workload trainer = host.run({"--gpu", "0", "--mem", "2G", "--workers", "2"});
    trainer.kill_parent();  // its DataLoader workers hold GPU 0, orphaned
    Workload notebook = host.run({"--gpu", "1", "--mem", "1G", "--name", "notebook"});
    const std::string tokens = write_token_file(scratch_dir(host, "secrets"));
    // One sample at start, none after: what the agent answers is taken when asked.
    RunningAgent agent(host, {"--token-file", tokens, "--interval", "3600"});
    Workload late = host.run({"--gpu", "1", "--mem", "512M", "--name", "late"});

    std::string err;
    const json answered = listed(host, {}, &err);
    EXPECT_EQ(answered["source"], "agent") << err;
    EXPECT_EQ(answered["schema_version"], 1);
    EXPECT_TRUE(err.empty()) << err;
    const json swept = listed(host, {"--no-agent"});
    EXPECT_EQ(swept["source"], "sweep");
    EXPECT_EQ(holders_of(answered), holders_of(swept)) << answered.dump() << "\n" << swept.dump();
    EXPECT_EQ(counts_of(answered), counts_of(swept));
    std::set<pid_t> pids;
    for (const Holder& holder : holders_of(answered)) pids.insert(std::get<0>(holder));
    for (pid_t pid : {persistenced.pid(), notebook.pid(), late.pid(), agent.pid()}) {
        EXPECT_TRUE(pids.contains(pid)) << pid << " missing: " << answered.dump();
    }
    for (pid_t worker : trainer.workers()) EXPECT_TRUE(pids.contains(worker)) << worker;

    // Narrowed exactly as a sweep is narrowed.
    for (const std::vector<std::string>& selectors : std::vector<std::vector<std::string>>{
             {"--gpu", "1"}, {"--orphaned"}, {"--filter", "late"}, {"--vendor", "amd"}}) {
        std::vector<std::string> swept_args = selectors;
        swept_args.push_back("--no-agent");
        const json narrowed = listed(host, selectors);
        EXPECT_EQ(narrowed["source"], "agent");
        EXPECT_EQ(holders_of(narrowed), holders_of(listed(host, swept_args))) << selectors[0];
        EXPECT_EQ(narrowed["gpus"].size(), listed(host, swept_args)["gpus"].size()) << selectors[0];
    }
    CommandResult missing = host.gpukill({"list", "--gpu", "7"});
    EXPECT_EQ(missing.exit_code, 3) << missing.out << missing.err;

    // The table says who answered, within 80 columns.
    CommandResult table = host.gpukill({"list"}, {{"COLUMNS", "80"}});
    EXPECT_NE(table.out.find("Answered by the local gpukill agent (PID " +
                             std::to_string(agent.pid()) + ")"),
              std::string::npos)
        << table.out;
    CommandResult own = host.gpukill({"list", "--no-agent"});
    EXPECT_EQ(own.out.find("Answered by"), std::string::npos) << own.out;
}

TEST(LocalList, AListAnsweredByTheAgentIsNotRecordedTwice) {
    if (::geteuid() != 0) GTEST_SKIP() << "the local channel is root's";
    SimulatedHost host;
    Workload job = host.run({"--gpu", "0", "--mem", "1G"});
    const std::string tokens = write_token_file(scratch_dir(host, "secrets"));
    const std::map<std::string, std::string> every_sample = {
        {"GPUKILL_HISTORY_MIN_INTERVAL_SECONDS", "0"}};
    RunningAgent agent(host, {"--token-file", tokens, "--interval", "3600"}, every_sample);
    const std::size_t before = gpu_samples(host);
    EXPECT_GT(before, 0u) << "the agent records its samples";
    for (int i = 0; i < 3; ++i) {
        CommandResult r = host.gpukill({"list", "--json"}, every_sample);
        EXPECT_EQ(json::parse(r.out)["source"], "agent") << r.err;
    }
    EXPECT_EQ(gpu_samples(host), before);
    CommandResult swept = host.gpukill({"list", "--json", "--no-agent"}, every_sample);
    ASSERT_EQ(swept.exit_code, 0) << swept.err;
    EXPECT_EQ(gpu_samples(host), before + 2) << "a sweep records its two GPUs";
}

TEST(LocalList, WithoutTheAgentAListSweepsAsBefore) {
    if (::geteuid() != 0) GTEST_SKIP() << "the local channel is root's";
    SimulatedHost host;
    Workload job = host.run({"--gpu", "0", "--mem", "1G"});
    const std::string tokens = write_token_file(scratch_dir(host, "secrets"));
    {
        RunningAgent agent(host, {"--token-file", tokens, "--interval", "3600"});
        EXPECT_EQ(listed(host, {})["source"], "agent");
        agent.process().send_signal(SIGTERM);
        EXPECT_EQ(agent.process().wait(), 0);
    }
    EXPECT_FALSE(std::filesystem::exists(engine::local_channel_path(state_of(host))));
    std::string err;
    const json swept = listed(host, {}, &err);
    EXPECT_EQ(swept["source"], "sweep");
    EXPECT_TRUE(err.empty()) << "no agent is nothing to say: " << err;
    ASSERT_EQ(swept["processes"].size(), 1u) << swept.dump();
    EXPECT_EQ(swept["processes"][0]["pid"], job.pid());
}

TEST(LocalList, AUserTheAgentDoesNotServeSweepsQuietly) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to run the agent and another user";
    SimulatedHost host;
    open_host_to_all_users(host);
    Workload job = host.run({"--gpu", "0", "--mem", "1G"});
    const std::string tokens = write_token_file(scratch_dir(host, "secrets"));
    RunningAgent agent(host, {"--token-file", tokens, "--interval", "3600"});
    // The state directory reachable, so the user meets the socket itself (mode 0600).
    const std::string state = state_of(host);
    ASSERT_EQ(::chmod(state.c_str(), 0755), 0);
    std::map<std::string, std::string> env = host.env();
    env["GPUKILL_CONFIG_DIR"] = scratch_dir(host, "nobody-config");
    env["GPUKILL_NO_HISTORY"] = "1";
    constexpr uid_t kNobody = 65534;
    CommandResult r = run_command({GPUKILL_BIN, "list", "--json"}, env, 30, kNobody);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(json::parse(r.out)["source"], "sweep");
    EXPECT_EQ(r.err.find("agent"), std::string::npos) << r.err;
}

// `gpukill agent` as root with only `caps` in its bounding set (setpriv, as the systemd
// unit's CapabilityBoundingSet), serving the host's state directory.
class ConfinedAgent {
  public:
    ConfinedAgent(const SimulatedHost& host, const std::string& caps)
        : process_({"/bin/sh", "-c", "exec \"$0\" \"$@\" 2>&1", "/usr/bin/setpriv",
                    "--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=" + caps, GPUKILL_BIN,
                    "agent", "--listen", "127.0.0.1:0", "--interval", "3600", "--no-guard"},
                   host.env()) {
        while (auto line = process_.read_line(30)) {
            log_ += *line + "\n";
            if (line->find("listening on") != std::string::npos) return;
        }
        ADD_FAILURE() << "the agent did not start:\n" << log_;
    }
    pid_t pid() const { return process_.pid(); }

  private:
    RunningCommand process_;
    std::string log_;
};

TEST(LocalList, AnAgentConfinedAsShippedAnswersAndOneThatSeesLessDoesNot) {
    if (::geteuid() != 0 || ::access("/usr/bin/setpriv", X_OK) != 0) {
        GTEST_SKIP() << "needs root, setpriv";
    }
    SimulatedHost host;
    Workload job = host.run({"--gpu", "0", "--mem", "1G"});
    // deploy/systemd/gpukill-agent.service's CapabilityBoundingSet.
    {
        ConfinedAgent shipped(host,
                              "-all,+kill,+sys_ptrace,+dac_read_search,+sys_admin,+net_admin");
        std::string err;
        EXPECT_EQ(listed(host, {}, &err)["source"], "agent") << err;
    }
    {
        ConfinedAgent blind(host, "-all,+kill,+dac_read_search,+sys_admin,+net_admin");
        std::string err;
        const json swept = listed(host, {}, &err);
        EXPECT_EQ(swept["source"], "sweep");
        EXPECT_NE(err.find("lacks CAP_SYS_PTRACE, which this process has"), std::string::npos)
            << err;
    }
}

// An answer that cannot be used is a note and a sweep: the listing is this host's all
// the same, within the channel's second.
TEST(LocalList, ABrokenOrUntrustedAnswerIsSweptOver) {
    if (::geteuid() != 0) GTEST_SKIP() << "the local channel is root's";
    SimulatedHost host;
    Workload job = host.run({"--gpu", "0", "--mem", "1G"});
    const std::string socket = engine::local_channel_path(state_of(host));
    const auto swept_with_note = [&](const std::string& note) {
        const auto started = std::chrono::steady_clock::now();
        std::string err;
        const json listing = listed(host, {}, &err);
        EXPECT_EQ(listing["source"], "sweep") << note;
        ASSERT_EQ(listing["processes"].size(), 1u) << listing.dump();
        EXPECT_EQ(listing["processes"][0]["pid"], job.pid());
        EXPECT_NE(err.find(note), std::string::npos) << err;
        EXPECT_NE(err.find("read /proc here instead"), std::string::npos) << err;
        EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(15));
    };
    {
        FakeLocalAgent garbage(socket, FakeLocalAgent::replying({"this is not json"}));
        swept_with_note("is not a reply");
        EXPECT_EQ(garbage.connections(), 1);
    }
    {
        const std::string lie = R"({"schema_version":1,"host":"elsewhere","processes":7})";
        FakeLocalAgent liar(
            socket, FakeLocalAgent::replying({engine::local_snapshot_reply(lie.size()), lie}));
        swept_with_note("did not answer");
    }
    {
        FakeLocalAgent silent(socket, FakeLocalAgent::silent());
        swept_with_note("no answer in time");
    }
    {
        // Someone else's listener where the agent's should be: never connected to.
        FakeLocalAgent impostor(socket, FakeLocalAgent::replying({"{}"}));
        ASSERT_EQ(::chown(socket.c_str(), 65534, 65534), 0);
        swept_with_note("is not a socket of root's or this user's");
        EXPECT_EQ(impostor.connections(), 0);
    }
}

}  // namespace
}  // namespace local_list_test
}  // namespace gpukill::testing

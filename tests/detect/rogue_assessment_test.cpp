// The evidence model end to end over facts: scores add one weight per signal and cap
// at 100, risk levels follow the thresholds, notes say what was not judged, findings
// are those at or above the threshold, and allowed processes are kept apart (listed,
// not dropped).
#include "detect/assessment.hpp"

#include <gtest/gtest.h>

#include "rogue_test_support.hpp"

namespace gpukill::detect {
namespace {

using rogue_test::has;
using rogue_test::process;

const RogueConfig kConfig = default_rogue_config();

ProcessFacts facts_of(ProcessInfo info) {
    ProcessFacts facts;
    facts.holder.info = std::move(info);
    facts.holder.gpus.push_back({.gpu_index = 0, .memory_bytes = 256ull << 20});
    facts.network = NetworkFacts{};
    return facts;
}

TEST(RogueScore, OneWeightPerSignalCappedAt100) {
    EXPECT_EQ(total_score({}), 0);
    EXPECT_EQ(total_score({{Signal::miner_name, 60, "a"}, {Signal::miner_name, 60, "b"}}), 60);
    EXPECT_EQ(total_score({{Signal::miner_name, 60, "a"}, {Signal::stratum_url, 60, "b"}}), 100);
}

TEST(RogueScore, RiskLevelsByLowerBound) {
    const RiskThresholds levels;
    EXPECT_EQ(risk_for(0, levels), RiskLevel::low);
    EXPECT_EQ(risk_for(39, levels), RiskLevel::low);
    EXPECT_EQ(risk_for(40, levels), RiskLevel::medium);
    EXPECT_EQ(risk_for(70, levels), RiskLevel::high);
    EXPECT_EQ(risk_for(90, levels), RiskLevel::critical);
    EXPECT_EQ(risk_name(RiskLevel::critical), "critical");
}

TEST(RogueAssess, AMinerIsCriticalWithEveryPieceOfEvidenceHeaviestFirst) {
    ProcessFacts facts = facts_of(process(
        "xmrig", "/tmp/.x/xmrig",
        {"./xmrig", "-o", "stratum+tcp://192.0.2.7:3333", "--donate-level", "1", "-a", "rx/0"}));
    facts.holder.info.exe_deleted = true;
    TcpSocket socket;
    socket.remote = *parse_ip_address("192.0.2.7");
    socket.remote_port = 3333;
    socket.local_port = 50000;
    socket.state = kTcpEstablished;
    facts.network->sockets = {socket};
    const Assessment assessment = assess(facts, kConfig);
    EXPECT_EQ(assessment.score, 100);
    EXPECT_EQ(assessment.risk, RiskLevel::critical);
    for (Signal signal :
         {Signal::miner_name, Signal::stratum_url, Signal::miner_option, Signal::mining_algorithm,
          Signal::exe_deleted, Signal::exe_in_temp_dir, Signal::pool_port_connection}) {
        EXPECT_TRUE(has(assessment.evidence, signal)) << signal_name(signal);
    }
    for (std::size_t i = 1; i < assessment.evidence.size(); ++i) {
        EXPECT_GE(assessment.evidence[i - 1].weight, assessment.evidence[i].weight);
    }
    EXPECT_NE(std::find(assessment.notes.begin(), assessment.notes.end(),
                        "no usage history: shape not judged"),
              assessment.notes.end());
}

TEST(RogueAssess, TrainingRaisesNothing) {
    const Assessment assessment =
        assess(facts_of(process("python", "/usr/bin/python3.11",
                                {"python", "train.py", "--epochs", "90", "--batch-size", "256"})),
               kConfig);
    EXPECT_EQ(assessment.score, 0);
    EXPECT_TRUE(assessment.evidence.empty());
    EXPECT_EQ(assessment.risk, RiskLevel::low);
}

TEST(RogueAssess, NotesSayWhatCouldNotBeJudged) {
    ProcessFacts facts = facts_of(process("x", std::nullopt, {"x"}));
    facts.network.reset();
    facts.network_note = "cannot open /proc/42/fd: Permission denied";
    facts.history = std::vector<history::ProcessSample>{};
    const Assessment assessment = assess(facts, kConfig);
    EXPECT_FALSE(assessment.fully_examined);
    const auto& notes = assessment.notes;
    ASSERT_EQ(notes.size(), 3u);
    EXPECT_EQ(notes[0], "network not judged: cannot open /proc/42/fd: Permission denied");
    EXPECT_NE(notes[1].find("no samples of this process"), std::string::npos);
    EXPECT_NE(notes[2].find("executable unreadable"), std::string::npos);
}

TEST(RogueAssess, UsageShapeFromHistoryCounts) {
    ProcessFacts facts = facts_of(process("worker", "/opt/w/worker", {"worker"}));
    std::vector<history::ProcessSample> samples;
    for (int i = 0; i <= 40; ++i) {
        samples.push_back({.time_unix_ms = i * 60'000,
                           .memory_bytes = 128ull << 20,
                           .gpu_utilization_percent = 100,
                           .gpu_process_count = 1});
    }
    facts.history = samples;
    const Assessment assessment = assess(facts, kConfig);
    EXPECT_TRUE(has(assessment.evidence, Signal::mining_usage_shape));
    EXPECT_EQ(assessment.score, 40);
    EXPECT_EQ(assessment.risk, RiskLevel::medium);
}

TEST(RogueScore, ASecondObservationOfASignalJoinsTheFirstsSentence) {
    std::vector<Evidence> evidence = {{Signal::stratum_url, 60, "in argv"}};
    add_evidence(evidence, {Signal::stratum_url, 60, "in the file"});
    add_evidence(evidence, {Signal::wallet_address, 40, "wallet"});
    ASSERT_EQ(evidence.size(), 2u);
    EXPECT_EQ(evidence[0].detail, "in argv; in the file");
    EXPECT_EQ(total_score(evidence), 100);
}

std::vector<history::ProcessSample> busy_minutes(int minutes, std::uint64_t memory) {
    std::vector<history::ProcessSample> samples;
    for (int i = 0; i <= minutes; ++i) {
        samples.push_back({.time_unix_ms = i * 60'000,
                           .memory_bytes = memory,
                           .gpu_utilization_percent = 100,
                           .gpu_process_count = 1});
    }
    return samples;
}

TcpSocket to_pool_port() {
    TcpSocket socket;
    socket.remote = *parse_ip_address("127.0.0.1");
    socket.remote_port = 3333;
    socket.local_port = 50000;
    socket.state = kTcpEstablished;
    return socket;
}

// Issue 19's first disguise: a miner copied as python3, its pool in a config file.
TEST(RogueAssess, AMinerNamedPython3WithItsPoolInAConfigFile) {
    ProcessFacts facts = facts_of(process("python3", "/home/u/.local/bin/python3",
                                          {"python3", "--config=/home/u/.cache/settings.json"}));
    facts.config_files = {
        {"/home/u/.cache/settings.json",
         R"({"pools": [{"url": "stratum+tcp://127.0.0.1:3333", "algo": "kawpow"}]})", false}};
    facts.executable_scan =
        ExecutableScan{{"stratum+tcp", "kawpow", "mining.subscribe"}, 1000, false};
    facts.network->sockets = {to_pool_port()};
    facts.history = busy_minutes(12, 30ull << 30);  // a training job's memory: shape says no
    const Assessment assessment = assess(facts, kConfig);
    for (Signal signal : {Signal::stratum_url, Signal::mining_algorithm, Signal::miner_signature,
                          Signal::pool_port_connection, Signal::busy_pool_connection}) {
        EXPECT_TRUE(has(assessment.evidence, signal)) << signal_name(signal);
    }
    EXPECT_FALSE(has(assessment.evidence, Signal::mining_usage_shape));
    EXPECT_FALSE(has(assessment.evidence, Signal::masquerade)) << "it is what it says: python3";
    EXPECT_EQ(assessment.score, 100);
    EXPECT_NE(std::find(assessment.notes.begin(), assessment.notes.end(),
                        "executable content: mining strings"),
              assessment.notes.end());
}

TEST(RogueAssess, APoolConnectionFromABusyGpuAloneIsAFinding) {
    ProcessFacts facts = facts_of(process("python3", "/usr/bin/python3.11", {"python3", "w.py"}));
    facts.network->sockets = {to_pool_port()};
    EXPECT_EQ(assess(facts, kConfig).score, 25) << "the connection alone";
    facts.history = busy_minutes(12, 30ull << 30);
    const Assessment busy = assess(facts, kConfig);
    EXPECT_EQ(busy.score, 45);
    EXPECT_GE(busy.score, kConfig.report_threshold);
    EXPECT_TRUE(has(busy.evidence, Signal::busy_pool_connection));
}

// Issue 19's second disguise: the same binary named kworker, no telling arguments.
TEST(RogueAssess, AMinerNamedKworkerIsAFindingOnItsName) {
    ProcessFacts facts = facts_of(process("kworker", "/home/u/.cache/kworker", {"kworker"}));
    facts.executable_file = ExecutableFile{1001, false};
    const Assessment assessment = assess(facts, kConfig);
    EXPECT_TRUE(has(assessment.evidence, Signal::kernel_thread_name));
    EXPECT_GE(assessment.score, kConfig.report_threshold);
}

TEST(RogueAssess, ContentNotReadIsANote) {
    ProcessFacts facts = facts_of(process("w", "/opt/w", {"w", "--config", "/etc/w.yaml"}));
    facts.executable_note = "cannot open /proc/42/exe: Permission denied";
    facts.config_file_notes = {
        "configuration file not judged: /etc/w.yaml is not readable by "
        "the process's owner"};
    const Assessment assessment = assess(facts, kConfig);
    EXPECT_NE(std::find(assessment.notes.begin(), assessment.notes.end(),
                        "executable content not judged: cannot open /proc/42/exe: Permission "
                        "denied"),
              assessment.notes.end());
    EXPECT_NE(std::find(assessment.notes.begin(), assessment.notes.end(),
                        facts.config_file_notes.front()),
              assessment.notes.end());
}

TEST(RogueReportTest, FindingsAtTheThresholdAllowedApartOrderedByScore) {
    RogueConfig config = default_rogue_config();
    config.allow.users = {"render"};
    ProcessInfo allowed_miner = process("xmrig", "/opt/xmrig", {"xmrig"}, 10);
    allowed_miner.user = "render";
    std::vector<Assessment> all = {
        assess(facts_of(process("python", "/usr/bin/python3.11", {"python"}, 5)), config),
        assess(facts_of(process("python", "/opt/gpusim", {"python"}, 7)), config),  // 40
        assess(facts_of(process("xmrig", "/opt/xmrig", {"xmrig", "--donate-level", "1"}, 9)),
               config),  // 90
        assess(facts_of(allowed_miner), config),
    };
    ProcessFacts unreadable = facts_of(process("x", std::nullopt, {"x"}, 11));
    unreadable.network.reset();
    all.push_back(assess(unreadable, config));
    const RogueReport report = build_report(all, config);
    EXPECT_EQ(report.processes_examined, 5u);
    EXPECT_EQ(report.processes_not_fully_examined, 1u);
    ASSERT_EQ(report.findings.size(), 2u);
    EXPECT_EQ(report.findings[0].holder.info.pid, 9);
    EXPECT_EQ(report.findings[0].score, 90);
    EXPECT_EQ(report.findings[1].holder.info.pid, 7);
    EXPECT_EQ(report.findings[1].score, 40);
    ASSERT_EQ(report.allowed.size(), 1u);
    EXPECT_EQ(report.allowed[0].holder.info.pid, 10);
    ASSERT_TRUE(report.allowed[0].allowed);
    EXPECT_EQ(report.allowed[0].allowed->kind, "user");

    config.report_threshold = 41;
    EXPECT_EQ(build_report(all, config).findings.size(), 1u);
}

}  // namespace
}  // namespace gpukill::detect

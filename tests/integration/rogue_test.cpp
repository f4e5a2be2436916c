// `gpukill audit --rogue` against real processes in harmless disguises: copies of
// gpusim named like a miner (a stratum URL in its arguments, connected to a local
// listener on a pool port), started from /tmp and deleted, renamed "python" with
// prctl; a history built by sampling workloads with `gpukill list`; and the
// false-positive side: a training job looking like one raises nothing under the
// default configuration. Also the configuration flags: print, export, import.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "rogue_support.hpp"

namespace gpukill::testing {
namespace {

TEST(Rogue, AMinerInDisguiseIsCriticalWithEveryPieceOfEvidence) {
    SimulatedHost host;
    ScratchDir dirs("/tmp");
    LocalListener pool;
    // The test's own pool port: the listener's, in place of the default list.
    write_text(dirs / "rogue.yaml", "pool_ports: [" + std::to_string(pool.port()) + "]\n");
    const std::string xmrig = copy_of_gpusim(dirs, "xmrig");
    Workload miner = host.run_program(
        xmrig, {"--gpu", "0", "--mem", "256M", "--util", "100", "--connect", pool.endpoint(), "--",
                "-o", "stratum+tcp://" + pool.endpoint(), "--donate-level", "1"});

    RogueRun run = rogue_json(host, dirs, {"--rogue-config-file", dirs / "rogue.yaml"});
    ASSERT_EQ(run.result.exit_code, 9) << run.result.err << run.result.out;
    EXPECT_EQ(run.doc["schema_version"], 1);
    EXPECT_EQ(run.doc["config_source"], dirs / "rogue.yaml");
    const nlohmann::json* finding = entry_for(run.doc["findings"], miner.pid());
    ASSERT_NE(finding, nullptr) << run.result.out;
    EXPECT_EQ((*finding)["start_time_ticks"], miner.start_time_ticks());
    EXPECT_EQ((*finding)["name"], "xmrig");
    EXPECT_EQ((*finding)["exe"], xmrig);
    EXPECT_EQ((*finding)["score"], 100);
    EXPECT_EQ((*finding)["risk"], "critical");
    const auto signals = signals_of(*finding);
    for (const char* signal :
         {"miner_name", "stratum_url", "miner_option", "pool_port_connection", "exe_in_temp_dir"}) {
        EXPECT_TRUE(signals.contains(signal)) << signal << " in " << finding->dump(2);
    }
    bool connection_named = false;
    for (const auto& evidence : (*finding)["evidence"]) {
        if (evidence["signal"] == "pool_port_connection") {
            connection_named = evidence["detail"].get<std::string>().find(
                                   "connected to " + pool.endpoint()) != std::string::npos;
        }
    }
    EXPECT_TRUE(connection_named) << finding->dump(2);

    // The finding is in the audit log, with its evidence.
    const auto records = audit_records(dirs, "rogue_finding");
    ASSERT_EQ(records.size(), 1u);
    EXPECT_EQ(records[0]["process"]["pid"], miner.pid());
    EXPECT_EQ(records[0]["score"], 100);
    EXPECT_EQ(records[0]["evidence"].size(), (*finding)["evidence"].size());

    // The table says the same to a person.
    CommandResult table =
        host.gpukill({"--audit", "--rogue", "--state-dir", dirs / "state", "--config-dir",
                      dirs / "etc", "--rogue-config-file", dirs / "rogue.yaml"});
    EXPECT_EQ(table.exit_code, 9) << table.err;
    EXPECT_NE(table.out.find("critical"), std::string::npos) << table.out;
    EXPECT_NE(table.out.find("+60  miner_name"), std::string::npos) << table.out;
    EXPECT_NE(table.out.find("no usage history"), std::string::npos) << table.out;
}

TEST(Rogue, StartedFromTmpAndDeletedIsReported) {
    SimulatedHost host;
    ScratchDir dirs("/tmp");
    const std::string worker = copy_of_gpusim(dirs, "worker");
    Workload dropped = host.run_program(worker, {"--gpu", "1", "--mem", "1G"});
    fs::remove(worker);

    RogueRun run = rogue_json(host, dirs);
    ASSERT_EQ(run.result.exit_code, 9) << run.result.err << run.result.out;
    const nlohmann::json* finding = entry_for(run.doc["findings"], dropped.pid());
    ASSERT_NE(finding, nullptr) << run.result.out;
    EXPECT_EQ((*finding)["exe"], worker);
    EXPECT_EQ((*finding)["exe_deleted"], true);
    EXPECT_EQ(signals_of(*finding), (std::set<std::string>{"exe_deleted", "exe_in_temp_dir"}));
    EXPECT_EQ((*finding)["score"], 60);
    EXPECT_EQ((*finding)["risk"], "medium");
}

TEST(Rogue, RenamedPythonThroughPrctlIsAMasqueradeAndNotAllowedByName) {
    SimulatedHost host;
    ScratchDir dirs("/tmp");
    Workload renamed = host.run({"--gpu", "0", "--mem", "512M", "--name", "python"});
    // Allowing "python" by name does not allow what only calls itself python.
    write_text(dirs / "allow.yaml", "allow:\n  names: [python]\n");

    RogueRun run = rogue_json(host, dirs, {"--rogue-config-file", dirs / "allow.yaml"});
    ASSERT_EQ(run.result.exit_code, 9) << run.result.err << run.result.out;
    const nlohmann::json* finding = entry_for(run.doc["findings"], renamed.pid());
    ASSERT_NE(finding, nullptr) << run.result.out;
    EXPECT_EQ((*finding)["name"], "python");
    // A build under /tmp (a CI clone) adds the temp-directory signal, rightly.
    if (gpusim_in_temp_dir()) {
        EXPECT_EQ(signals_of(*finding), (std::set<std::string>{"masquerade", "exe_in_temp_dir"}));
        EXPECT_EQ((*finding)["risk"], "high");
    } else {
        EXPECT_EQ(signals_of(*finding), std::set<std::string>{"masquerade"});
        EXPECT_EQ((*finding)["risk"], "medium");
    }
    const std::string detail = (*finding)["evidence"][0]["detail"];
    EXPECT_NE(detail.find("calls itself \"python\" but runs \"" + std::string(GPUSIM_BIN) + "\""),
              std::string::npos)
        << detail;
    EXPECT_TRUE(run.doc["allowed"].empty());
}

TEST(Rogue, AllowedProcessesAreListedAsAllowedNotFindings) {
    SimulatedHost host;
    ScratchDir dirs("/tmp");
    const std::string xmrig = copy_of_gpusim(dirs, "xmrig");
    Workload miner = host.run_program(xmrig, {"--gpu", "0", "--mem", "256M"});
    write_text(dirs / "allow.yaml", "allow:\n  users: [" + current_user_name() + "]\n");

    RogueRun run = rogue_json(host, dirs, {"--rogue-config-file", dirs / "allow.yaml"});
    ASSERT_EQ(run.result.exit_code, 0) << run.result.err << run.result.out;
    EXPECT_TRUE(run.doc["findings"].empty());
    const nlohmann::json* allowed = entry_for(run.doc["allowed"], miner.pid());
    ASSERT_NE(allowed, nullptr) << run.result.out;
    EXPECT_EQ((*allowed)["allowed_by"]["kind"], "user");
    EXPECT_TRUE(signals_of(*allowed).contains("miner_name"));
    EXPECT_TRUE(audit_records(dirs, "rogue_finding").empty());
}

TEST(Rogue, ATrainingJobRaisesNothingUnderTheDefaults) {
    SimulatedHost host;
    // Outside the scratch directories: where an interpreter is installed.
    ScratchDir install(fs::path(GPUSIM_BIN).parent_path());
    ScratchDir dirs("/tmp");
    // A real interpreter runs as python3.11 behind a "python" symlink, so comm and argv[0]
    // say python; the DataLoader workers share everything.
    const std::string interpreter = copy_of_gpusim(install, "python3.11");
    Workload trainer = host.run_program(
        interpreter,
        {"--gpu",  "0",      "--mem",  "30G",           "--util",   "100", "--workers",    "2",
         "--name", "python", "--",     "train.py",      "--epochs", "90",  "--batch-size", "256",
         "--lr",   "0.1",    "--data", "/data/imagenet"});
    Workload inference = host.run({"--gpu", "1", "--mem", "20G", "--util", "95"});
    for (int i = 0; i < 2; ++i) {
        ASSERT_EQ(host.gpukill({"list", "--state-dir", dirs / "state"}).exit_code, 0);
    }

    RogueRun run = rogue_json(host, dirs);
    ASSERT_EQ(run.result.exit_code, 0) << run.result.err << run.result.out;
    EXPECT_TRUE(run.doc["findings"].empty()) << run.result.out;
    EXPECT_TRUE(run.doc["allowed"].empty());
    EXPECT_EQ(run.doc["processes_examined"], 4) << run.result.out;
    EXPECT_EQ(run.doc["config_source"], "built-in defaults");
    EXPECT_TRUE(run.doc["usage_history"]["available"]);
    EXPECT_TRUE(audit_records(dirs, "rogue_finding").empty());

    CommandResult table = host.gpukill(
        {"audit", "--rogue", "--state-dir", dirs / "state", "--config-dir", dirs / "etc"});
    EXPECT_EQ(table.exit_code, 0);
    EXPECT_NE(table.out.find("No rogue processes among 4 GPU processes"), std::string::npos)
        << table.out;
}

TEST(Rogue, UsageShapeFromSampledHistory) {
    SimulatedHost host;
    ScratchDir dirs("/tmp");
    // Nothing but its shape gives this one away: busy, small, flat.
    Workload shaped = host.run({"--gpu", "0", "--mem", "256M", "--util", "100"});
    // Busy too, but with a training job's memory.
    Workload trainer = host.run({"--gpu", "1", "--mem", "24G", "--util", "100"});
    // Minutes shrunk to seconds so that sampling takes seconds.
    write_text(dirs / "shape.yaml",
               "usage_shape: {min_minutes: 0.02, max_sample_gap_seconds: 60}\n");
    for (int i = 0; i < 3; ++i) {
        if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(800));
        // Every snapshot recorded, not one per 10 s (the history's default).
        CommandResult list = host.gpukill({"list", "--state-dir", dirs / "state"},
                                          {{"GPUKILL_HISTORY_MIN_INTERVAL_SECONDS", "0"}});
        ASSERT_EQ(list.exit_code, 0) << list.err;
    }

    RogueRun run = rogue_json(host, dirs, {"--rogue-config-file", dirs / "shape.yaml"});
    ASSERT_EQ(run.result.exit_code, 9) << run.result.err << run.result.out;
    EXPECT_TRUE(run.doc["usage_history"]["available"]);
    const nlohmann::json* finding = entry_for(run.doc["findings"], shaped.pid());
    ASSERT_NE(finding, nullptr) << run.result.out;
    if (gpusim_in_temp_dir()) {
        EXPECT_EQ(signals_of(*finding),
                  (std::set<std::string>{"mining_usage_shape", "exe_in_temp_dir"}));
        EXPECT_EQ((*finding)["score"], 70);
    } else {
        EXPECT_EQ(signals_of(*finding), std::set<std::string>{"mining_usage_shape"});
        EXPECT_EQ((*finding)["score"], 40);
    }
    EXPECT_EQ(entry_for(run.doc["findings"], trainer.pid()), nullptr) << run.result.out;

    // Without history the shape is not judged, and the output says so.
    ScratchDir empty("/tmp");
    RogueRun blind = rogue_json(host, empty, {"--rogue-config-file", dirs / "shape.yaml"});
    ASSERT_EQ(blind.result.exit_code, 0) << blind.result.err << blind.result.out;
    EXPECT_FALSE(blind.doc["usage_history"]["available"]);
    EXPECT_NE(blind.doc["usage_history"]["note"].get<std::string>().find("shape not judged"),
              std::string::npos);
}

TEST(Rogue, ConfigurationPrintExportImport) {
    SimulatedHost host;
    ScratchDir dirs("/tmp");
    const std::vector<std::string> where = {"--config-dir", dirs / "etc", "--state-dir",
                                            dirs / "state"};
    auto gpukill = [&](std::vector<std::string> args) {
        args.insert(args.end(), where.begin(), where.end());
        return host.gpukill(args);
    };

    CommandResult shown = gpukill({"audit", "--rogue-config"});
    ASSERT_EQ(shown.exit_code, 0) << shown.err;
    EXPECT_NE(shown.out.find("# source: built-in defaults"), std::string::npos) << shown.out;
    EXPECT_NE(shown.out.find("report_threshold: 40"), std::string::npos);

    CommandResult exported = gpukill({"--rogue-export-config"});
    ASSERT_EQ(exported.exit_code, 0) << exported.err;
    write_text(dirs / "site.yaml", exported.out + "report_threshold: 55\n");
    // Repeated key: the edited export is refused, nothing is installed.
    CommandResult refused = gpukill({"audit", "--rogue-import-config", dirs / "site.yaml"});
    EXPECT_EQ(refused.exit_code, 3);
    EXPECT_NE(refused.err.find(dirs / "site.yaml:"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("key \"report_threshold\" appears twice"), std::string::npos)
        << refused.err;
    EXPECT_FALSE(fs::exists(dirs / "etc/rogue.yaml"));

    write_text(dirs / "site.yaml", exported.out);
    CommandResult imported = gpukill({"audit", "--rogue-import-config", dirs / "site.yaml"});
    ASSERT_EQ(imported.exit_code, 0) << imported.err;
    EXPECT_EQ(read_text(dirs / "etc/rogue.yaml"), exported.out);
    const auto installed = audit_records(dirs, "rogue_config_installed");
    ASSERT_EQ(installed.size(), 1u);
    EXPECT_EQ(installed[0]["path"], dirs / "etc/rogue.yaml");

    CommandResult json = gpukill({"audit", "--rogue-config", "--json"});
    ASSERT_EQ(json.exit_code, 0) << json.err;
    const auto doc = nlohmann::json::parse(json.out);
    EXPECT_EQ(doc["source"], dirs / "etc/rogue.yaml");
    EXPECT_EQ(doc["config"]["report_threshold"], 40);

    // A broken installed file is an error for every rogue command, never the defaults.
    write_text(dirs / "bad.yaml", "weights:\n  miner_name: 500\n");
    CommandResult bad = gpukill({"audit", "--rogue-import-config", dirs / "bad.yaml"});
    EXPECT_EQ(bad.exit_code, 3);
    EXPECT_EQ(bad.err, "gpukill: " + dirs / "bad.yaml" +
                           ":2:15: weights.miner_name: 500 is outside 0..100\n");
    EXPECT_EQ(read_text(dirs / "etc/rogue.yaml"), exported.out) << "the old file stays";
    write_text(dirs / "etc/rogue.yaml", "nonsense: 1\n");
    CommandResult broken = gpukill({"audit", "--rogue"});
    EXPECT_EQ(broken.exit_code, 3);
    EXPECT_NE(broken.err.find(dirs / "etc/rogue.yaml:1:1: unknown key"), std::string::npos)
        << broken.err;
}

TEST(Rogue, FlagsThatDoNotApplyAreRefused) {
    SimulatedHost host;
    ScratchDir dirs("/tmp");
    for (std::vector<std::string> args :
         {std::vector<std::string>{"audit", "--rogue", "--audit-summary"},
          {"audit", "--rogue", "--rogue-config"},
          {"audit", "--rogue", "--rogue-config-file", dirs / "missing.yaml"},
          {"audit", "--rogue-import-config", dirs / "x.yaml", "--rogue-config-file", "y"},
          {"audit", "--rogue", "--audit-hours", "0"}}) {
        args.insert(args.end(), {"--state-dir", dirs / "state", "--config-dir", dirs / "etc"});
        CommandResult r = host.gpukill(args);
        EXPECT_EQ(r.exit_code, 3) << args[2] << ": " << r.err;
        EXPECT_EQ(r.err.rfind("gpukill: ", 0), 0u) << r.err;
    }
}

}  // namespace
}  // namespace gpukill::testing

// Issue 19: miners that hide their command line, tried as an attacker would on a
// simulated host, and found with their evidence: copies of gpusim named python3 (its
// pool in a configuration file, miner strings appended to the binary), kworker and
// sshd; a busy GPU with a live connection to a local "pool" (a loopback listener). And
// the other side: real training, serving, rendering and encoding command lines, run as
// real processes from non-scratch directories, give no finding.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <thread>

#include "agent_support.hpp"
#include "rogue_support.hpp"

namespace gpukill::testing {
namespace {

constexpr const char* kMonero =
    "44AFFq5kSiGBoZ4NMDwYtN18obc8AemS33DBLWs3H7otXft3XjrpDtQGv7SqSsaBYBb98uNbr2VBBEt7f2wfn3RVGQBEP3"
    "A";

bool noted(const nlohmann::json& finding, const std::string& text) {
    for (const auto& note : finding["notes"]) {
        if (note.get<std::string>().find(text) != std::string::npos) return true;
    }
    return false;
}

// Where an installed program lives: beside the gpusim under test, not in /tmp (unless
// the build itself is there, which gpusim_in_temp_dir() tells).
fs::path install_dir() {
    return fs::path(GPUSIM_BIN).parent_path();
}

// Samples every workload with `gpukill list` three times, 0.8 s apart: 1.6 s of history,
// judged with usage_shape.min_minutes shrunk to 0.02 (1.2 s).
void sample_history(const SimulatedHost& host, const ScratchDir& dirs) {
    for (int i = 0; i < 3; ++i) {
        if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(800));
        CommandResult list = host.gpukill({"list", "--state-dir", dirs / "state"},
                                          {{"GPUKILL_HISTORY_MIN_INTERVAL_SECONDS", "0"}});
        ASSERT_EQ(list.exit_code, 0) << list.err;
    }
}

TEST(RogueDisguise, AMinerCopiedAsPython3WithItsPoolInAConfigFile) {
    SimulatedHost host;
    ScratchDir dirs("/tmp");
    ScratchDir install(install_dir());
    ScratchDir plain(install_dir());
    LocalListener pool;
    write_text(dirs / "rogue.yaml", "pool_ports: [" + std::to_string(pool.port()) + "]\n");
    write_text(dirs / "settings.json",
               std::string(R"({"autosave": true, "cuda": {"enabled": true}, "pools": [{)") +
                   R"("algo": "kawpow", "url": "stratum+tcp://)" + pool.endpoint() +
                   R"(", "user": ")" + kMonero + R"(.rig1", "tls": false}]})");
    const std::string miner = copy_of_gpusim_carrying(
        install, "python3", {"stratum+tcp://", "mining.subscribe", "kawpow", "--donate-level"});
    Workload disguised =
        host.run_program(miner, {"--gpu", "0", "--mem", "256M", "--util", "100", "--connect",
                                 pool.endpoint(), "--", "--config=" + dirs / "settings.json"});
    // What the issue saw: the same disguise without the strings and the file scores 25.
    const std::string control = copy_of_gpusim(plain, "python3");
    Workload connected = host.run_program(
        control, {"--gpu", "1", "--mem", "256M", "--util", "100", "--connect", pool.endpoint()});

    RogueRun run = rogue_json(host, dirs, {"--rogue-config-file", dirs / "rogue.yaml"});
    ASSERT_EQ(run.result.exit_code, 9) << run.result.err << run.result.out;
    const nlohmann::json* finding = entry_for(run.doc["findings"], disguised.pid());
    ASSERT_NE(finding, nullptr) << run.result.out;
    EXPECT_EQ((*finding)["name"], "python3");
    EXPECT_EQ((*finding)["score"], 100);
    EXPECT_EQ((*finding)["risk"], "critical");
    const auto signals = signals_of(*finding);
    for (const char* signal : {"stratum_url", "wallet_address", "mining_algorithm",
                               "miner_signature", "pool_port_connection"}) {
        EXPECT_TRUE(signals.contains(signal)) << signal << " in " << finding->dump(2);
    }
    EXPECT_FALSE(signals.contains("masquerade")) << "it is the python3 it says it is";
    const std::string in_file = "in the configuration file \"" + dirs / "settings.json" + "\"";
    EXPECT_NE(detail_of(*finding, "stratum_url").find(in_file), std::string::npos)
        << finding->dump(2);
    EXPECT_NE(detail_of(*finding, "mining_algorithm").find("\"kawpow\""), std::string::npos);
    const std::string content = detail_of(*finding, "miner_signature");
    for (const char* marker : {"\"stratum+tcp\"", "\"mining.subscribe\"", "\"kawpow\""}) {
        EXPECT_NE(content.find(marker), std::string::npos) << marker << " in " << content;
    }

    // The control scores below the threshold (plus the temp-directory signal when the
    // build is under /tmp); its reasons show with a threshold of 1.
    if (!gpusim_in_temp_dir()) {
        EXPECT_EQ(entry_for(run.doc["findings"], connected.pid()), nullptr) << run.result.out;
    }
    write_text(dirs / "all.yaml",
               "report_threshold: 1\npool_ports: [" + std::to_string(pool.port()) + "]\n");
    RogueRun everything = rogue_json(host, dirs, {"--rogue-config-file", dirs / "all.yaml"});
    const nlohmann::json* control_entry = entry_for(everything.doc["findings"], connected.pid());
    ASSERT_NE(control_entry, nullptr) << everything.result.out;
    EXPECT_TRUE(signals_of(*control_entry).contains("pool_port_connection"));
    EXPECT_EQ((*control_entry)["score"], gpusim_in_temp_dir() ? 55 : 25);
    EXPECT_TRUE(noted(*control_entry, "no miner strings in all ")) << control_entry->dump(2);
}

TEST(RogueDisguise, AMinerCopiedAsKworkerIsFoundOnItsName) {
    SimulatedHost host;
    ScratchDir dirs("/tmp");
    ScratchDir install(install_dir());
    const std::string kworker = copy_of_gpusim(install, "kworker");
    Workload hidden = host.run_program(kworker, {"--gpu", "0", "--mem", "256M", "--util", "100"});

    RogueRun run = rogue_json(host, dirs);
    ASSERT_EQ(run.result.exit_code, 9) << run.result.err << run.result.out;
    const nlohmann::json* finding = entry_for(run.doc["findings"], hidden.pid());
    ASSERT_NE(finding, nullptr) << run.result.out;
    EXPECT_EQ((*finding)["name"], "kworker");
    if (gpusim_in_temp_dir()) {
        EXPECT_EQ(signals_of(*finding),
                  (std::set<std::string>{"kernel_thread_name", "exe_in_temp_dir"}));
    } else {
        EXPECT_EQ(signals_of(*finding), std::set<std::string>{"kernel_thread_name"});
        EXPECT_EQ((*finding)["score"], 60);
        EXPECT_EQ((*finding)["risk"], "medium");
    }
    const std::string detail = detail_of(*finding, "kernel_thread_name");
    EXPECT_NE(detail.find("process name \"kworker\""), std::string::npos) << detail;
    EXPECT_NE(detail.find("it runs \"" + kworker + "\""), std::string::npos) << detail;
}

TEST(RogueDisguise, ASystemDaemonsNameFromAScratchCopy) {
    SimulatedHost host;
    ScratchDir dirs("/tmp");
    const std::string sshd = copy_of_gpusim(dirs, "sshd");
    Workload hidden = host.run_program(sshd, {"--gpu", "1", "--mem", "256M"});

    RogueRun run = rogue_json(host, dirs);
    ASSERT_EQ(run.result.exit_code, 9) << run.result.err << run.result.out;
    const nlohmann::json* finding = entry_for(run.doc["findings"], hidden.pid());
    ASSERT_NE(finding, nullptr) << run.result.out;
    EXPECT_EQ(signals_of(*finding),
              (std::set<std::string>{"system_daemon_name", "exe_in_temp_dir"}));
    EXPECT_EQ((*finding)["score"], 90);
    EXPECT_EQ((*finding)["risk"], "critical");
    const std::string detail = detail_of(*finding, "system_daemon_name");
    EXPECT_NE(detail.find("system daemon \"sshd\""), std::string::npos) << detail;
    EXPECT_NE(detail.find("not in a system program directory"), std::string::npos) << detail;
}

TEST(RogueDisguise, APoolConnectionFromABusyGpuAddsUpToAFinding) {
    SimulatedHost host;
    ScratchDir dirs("/tmp");
    LocalListener pool;
    // A training job's memory, so the usage shape alone says "not mining-like".
    Workload busy =
        host.run({"--gpu", "0", "--mem", "24G", "--util", "100", "--connect", pool.endpoint()});
    write_text(dirs / "busy.yaml",
               "pool_ports: [" + std::to_string(pool.port()) +
                   "]\nusage_shape: {min_minutes: 0.02, max_sample_gap_seconds: 60}\n");
    const std::vector<std::string> config = {"--rogue-config-file", dirs / "busy.yaml"};
    const int extra = gpusim_in_temp_dir() ? 30 : 0;

    // No history yet: the connection alone.
    RogueRun blind = rogue_json(host, dirs, config);
    ASSERT_EQ(blind.result.exit_code, extra > 0 ? 9 : 0) << blind.result.err << blind.result.out;

    sample_history(host, dirs);
    RogueRun run = rogue_json(host, dirs, config);
    ASSERT_EQ(run.result.exit_code, 9) << run.result.err << run.result.out;
    const nlohmann::json* finding = entry_for(run.doc["findings"], busy.pid());
    ASSERT_NE(finding, nullptr) << run.result.out;
    std::set<std::string> expected = {"pool_port_connection", "busy_pool_connection"};
    if (extra > 0) expected.insert("exe_in_temp_dir");
    EXPECT_EQ(signals_of(*finding), expected) << finding->dump(2);
    EXPECT_EQ((*finding)["score"], 45 + extra);
    const std::string detail = detail_of(*finding, "busy_pool_connection");
    EXPECT_NE(detail.find("connected to " + pool.endpoint()), std::string::npos) << detail;
    EXPECT_NE(detail.find("while keeping a GPU at >= 90% for "), std::string::npos) << detail;
    EXPECT_TRUE(noted(*finding, "not mining-like")) << finding->dump(2);
}

// gpukill's own rule lists carry every miner signature, and a second gpukill (a watch,
// the agent) holds the GPUs it reads through NVML: it is not a miner. The agent runs
// gpukill-interfaces (gpukill execs it), a file of its own that carries the same rules.
// Both are observers (NVML's device files, no context: nothing to mine with), which the
// rogue scan does not examine at all.
TEST(RogueDisguise, AnotherGpukillHoldingTheGpusIsNotJudgedOnItsContent) {
    SimulatedHost host;
    ScratchDir dirs("/tmp");
    Workload w = host.run({"--gpu", "0", "--mem", "1G"});
    RunningCommand watch({GPUKILL_BIN, "list", "--watch", "--json", "--interval", "0.2",
                          "--state-dir", dirs / "watch-state"},
                         host.env());
    ASSERT_TRUE(watch.read_line()) << "the first frame: NVML is open";
    std::filesystem::create_directories(dirs / "agent");
    RunningAgent agent(host, {"--token-file", write_token_file(dirs / "agent"), "--state-dir",
                              dirs / "agent-state", "--no-guard"});

    // Not examined, even at a threshold of 1: only the workload is.
    write_text(dirs / "all.yaml", "report_threshold: 1\n");
    RogueRun run = rogue_json(host, dirs, {"--rogue-config-file", dirs / "all.yaml"});
    ASSERT_FALSE(run.doc.is_null()) << run.result.err;
    EXPECT_EQ(run.doc["processes_examined"], 1) << run.result.out;
    for (const pid_t pid : {watch.pid(), agent.pid()}) {
        EXPECT_EQ(entry_for(run.doc["findings"], pid), nullptr) << run.result.out;
    }
    watch.send_signal(SIGINT);
    EXPECT_EQ(watch.wait(), 0);
    agent.process().send_signal(SIGTERM);
    EXPECT_EQ(agent.process().wait(), 0);
}

struct CleanJob {
    std::string program;  // a copy of gpusim under this name
    std::optional<std::string> name;
    std::vector<std::string> argv;  // after `--`
};

TEST(RogueDisguise, RealTrainingServingRenderingAndEncodingGiveNoFinding) {
    SimulatedHost host;
    ScratchDir dirs("/tmp");
    ScratchDir install(install_dir());
    LocalListener rendezvous;  // torchrun's and DeepSpeed's peer, on no pool port
    write_text(dirs / "llama.yaml",
               "model:\n  name: llama-7b\n  dim: 4096\noptim:\n  lr: 3.0e-4\n"
               "data:\n  path: /data/c4\n  url: https://huggingface.co/datasets/c4\nseed: 1234\n");
    write_text(dirs / "jupyter_server_config.py",
               "c = get_config()\nc.ServerApp.ip = '0.0.0.0'\nc.ServerApp.port = 8888\n"
               "c.ServerApp.open_browser = False\n");
    // A build under /tmp (a CI clone) cannot install anything outside a scratch
    // directory: there the location is not what is tested.
    const std::string settings = std::string(
                                     "pool_ports: [3333]\nusage_shape: {min_minutes: 0.02, "
                                     "max_sample_gap_seconds: 60}\n") +
                                 (gpusim_in_temp_dir() ? "temp_dirs: [/nonexistent]\n" : "");
    write_text(dirs / "clean.yaml", settings);
    const std::vector<CleanJob> jobs = {
        {"python3.11",
         "torchrun",
         {"--nnodes=1", "--nproc_per_node=8", "--rdzv_backend=c10d",
          "--rdzv_endpoint=" + rendezvous.endpoint(), "train.py", "--config", dirs / "llama.yaml"}},
        {"python3.11",
         "python3",
         {"-u", "-m", "deepspeed.launcher.launch", "--world_info=eyJsb2NhbGhvc3QiOiBbMF19",
          "--master_addr=127.0.0.1", "--master_port=29500", "train.py", "--deepspeed",
          "--deepspeed_config", "ds_config.json"}},
        {"python3.11",
         "python3",
         {"-m", "vllm.entrypoints.openai.api_server", "--model",
          "meta-llama/Meta-Llama-3-8B-Instruct", "--tensor-parallel-size", "1", "--host", "0.0.0.0",
          "--port", "8000"}},
        {"tritonserver",
         std::nullopt,
         {"--model-repository=/models", "--http-port=8000", "--grpc-port=8001",
          "--metrics-port=8002"}},
        {"python3.11",
         "jupyter-lab",
         {"--ip=0.0.0.0", "--port=8888", "--no-browser",
          "--config=" + dirs / "jupyter_server_config.py"}},
        {"python3.11",
         "python",
         {"main.py", "-a", "resnet50", "--dist-url", "tcp://224.66.41.62:23456", "--dist-backend",
          "nccl", "--multiprocessing-distributed", "--world-size", "1", "--rank", "0",
          "/data/imagenet"}},
        {"hashcat",
         std::nullopt,
         {"-m", "22000", "-a", "3", "-w", "4", "-O", "capture.hc22000", "?d?d?d?d?d?d?d?d"}},
        {"blender",
         std::nullopt,
         {"-b", "scene.blend", "-E", "CYCLES", "-o", "//render/frame_####", "-a", "--",
          "--cycles-device", "OPTIX"}},
        {"ffmpeg",
         std::nullopt,
         {"-hwaccel", "cuda", "-hwaccel_output_format", "cuda", "-i", "input.mp4", "-c:v",
          "h264_nvenc", "-preset", "p4", "-b:v", "5M", "-c", "copy", "output.mp4"}},
    };
    std::map<std::string, std::string> programs;
    std::vector<Workload> running;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        const CleanJob& job = jobs[i];
        if (!programs.contains(job.program)) {
            programs[job.program] = copy_of_gpusim(install, job.program);
        }
        std::vector<std::string> args = {"--gpu", std::to_string(i % 2), "--mem", "2G", "--util",
                                         "100"};
        if (i < 2) args.insert(args.end(), {"--connect", rendezvous.endpoint()});
        if (job.name) args.insert(args.end(), {"--name", *job.name});
        args.push_back("--");
        args.insert(args.end(), job.argv.begin(), job.argv.end());
        running.push_back(host.run_program(programs[job.program], args));
    }
    sample_history(host, dirs);

    RogueRun run = rogue_json(host, dirs, {"--rogue-config-file", dirs / "clean.yaml"});
    ASSERT_EQ(run.result.exit_code, 0) << run.result.err << run.result.out;
    EXPECT_TRUE(run.doc["findings"].empty()) << run.result.out;
    EXPECT_EQ(run.doc["processes_examined"], jobs.size()) << run.result.out;

    // Nothing of the new signals, even below the threshold.
    write_text(dirs / "all.yaml", "report_threshold: 1\n" + settings);
    RogueRun everything = rogue_json(host, dirs, {"--rogue-config-file", dirs / "all.yaml"});
    for (const auto& entry : everything.doc["findings"]) {
        const auto signals = signals_of(entry);
        for (const char* signal : {"kernel_thread_name", "system_daemon_name", "miner_signature",
                                   "busy_pool_connection", "stratum_url", "pool_address",
                                   "mining_algorithm", "miner_option", "wallet_address"}) {
            EXPECT_FALSE(signals.contains(signal)) << signal << " in " << entry.dump(2);
        }
        EXPECT_LT(entry["score"].get<int>(), 40) << entry.dump(2);
    }
}

}  // namespace
}  // namespace gpukill::testing

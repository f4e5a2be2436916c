// The configuration file a process names: which arguments name one, how a JSON, YAML or
// INI file's words become a command line, and the signals over them with the file named
// in the evidence; ordinary training configurations raise nothing.
#include "detect/config_argument_signals.hpp"

#include <gtest/gtest.h>

#include "rogue_test_support.hpp"

namespace gpukill::detect {
namespace {

using rogue_test::find;
using rogue_test::has;
using Strings = std::vector<std::string>;

const RogueConfig kConfig = default_rogue_config();
constexpr const char* kMonero =
    "44AFFq5kSiGBoZ4NMDwYtN18obc8AemS33DBLWs3H7otXft3XjrpDtQGv7SqSsaBYBb98uNbr2VBBEt7f2wfn3RVGQBEP3"
    "A";

TEST(RogueConfigArguments, TheFilesArgumentsName) {
    EXPECT_EQ(config_file_arguments({"python3", "--config=/home/u/.cache/settings.json"}),
              Strings{"/home/u/.cache/settings.json"});
    EXPECT_EQ(
        config_file_arguments({"m", "-c", "cfg.json", "--config", "b.yaml", "-c", "cfg.json"}),
        (Strings{"cfg.json", "b.yaml"}));
    EXPECT_EQ(config_file_arguments({"m", "--config-file=x.toml", "--conf", "y.ini"}),
              (Strings{"x.toml", "y.ini"}));
    // argv[0] is never one; a trailing option names nothing; other options are not read.
    EXPECT_TRUE(config_file_arguments({"--config=x"}).empty());
    EXPECT_TRUE(config_file_arguments({"m", "--config"}).empty());
    EXPECT_TRUE(config_file_arguments({"m", "--configure", "x", "--data", "d.json"}).empty());
    // Bounded: at most kMaxConfigFiles.
    Strings many = {"m"};
    for (int i = 0; i < 10; ++i) many.push_back("--config=f" + std::to_string(i));
    EXPECT_EQ(config_file_arguments(many).size(), kMaxConfigFiles);
}

TEST(RogueConfigArguments, WordsOfJsonYamlAndIniFiles) {
    EXPECT_EQ(config_words(R"({"pools": [{"url": "pool.example:3333", "user": "W"}], "x":1})"),
              (Strings{"--pools", "--url", "pool.example:3333", "--user", "W", "--x", "1"}));
    EXPECT_EQ(config_words("algo: kawpow\nurl: stratum+tcp://10.0.0.1:3333\n"),
              (Strings{"--algo", "kawpow", "--url", "stratum+tcp://10.0.0.1:3333"}));
    EXPECT_EQ(config_words("[pool]\nalgo = rx/0\ndonate-level=1\n"),
              (Strings{"pool", "--algo", "rx/0", "--donate-level", "1"}));
    EXPECT_EQ(config_words("-o stratum+ssl://p:443 --rig-id=a"),
              (Strings{"-o", "stratum+ssl://p:443", "--rig-id", "a"}));
    EXPECT_TRUE(config_words("").empty());
}

TEST(RogueConfigArguments, AnXmrigStyleConfigurationIsAFindingNamingTheFile) {
    const std::string text = std::string(R"({
    "autosave": true,
    "donate-level": 1,
    "cuda": {"enabled": true},
    "pools": [{
        "algo": "kawpow",
        "url": "stratum+tcp://127.0.0.1:3333",
        "user": ")") + kMonero +
                             R"(.rig1",
        "nicehash": false
    }]
})";
    auto evidence = judge_config_file({"/home/u/.cache/settings.json", text, false}, kConfig);
    for (Signal signal : {Signal::stratum_url, Signal::mining_algorithm, Signal::miner_option,
                          Signal::wallet_address}) {
        ASSERT_TRUE(has(evidence, signal)) << signal_name(signal);
        EXPECT_TRUE(find(evidence, signal)
                        ->detail.starts_with(
                            "in the configuration file \"/home/u/.cache/settings.json\": "))
            << find(evidence, signal)->detail;
    }
    EXPECT_NE(find(evidence, Signal::stratum_url)->detail.find("stratum+tcp://127.0.0.1:3333"),
              std::string::npos);
    EXPECT_NE(find(evidence, Signal::mining_algorithm)->detail.find("--algo \"kawpow\""),
              std::string::npos);
    EXPECT_GE(total_score(evidence), 90);

    auto cut = judge_config_file({"c.json", "url: stratum+tcp://p:3333", true}, kConfig);
    ASSERT_TRUE(has(cut, Signal::stratum_url));
    EXPECT_NE(cut.front().detail.find("\"c.json\" (its start)"), std::string::npos);
}

TEST(RogueConfigArguments, TrainingConfigurationsRaiseNothing) {
    const char* deepspeed = R"({
  "train_batch_size": 256, "gradient_accumulation_steps": 4,
  "optimizer": {"type": "AdamW", "params": {"lr": 3e-5, "betas": [0.9, 0.999]}},
  "fp16": {"enabled": true}, "zero_optimization": {"stage": 3, "offload_param": {"device": "cpu"}},
  "wandb": {"enabled": true, "project": "llm"}, "comms_logger": {"enabled": false}
})";
    const char* jupyter =
        "c.ServerApp.ip = '0.0.0.0'\nc.ServerApp.port = 8888\n"
        "c.ServerApp.open_browser = False\n";
    const char* hydra =
        "defaults:\n  - model: resnet50\ntrainer:\n  devices: 8\n  strategy: ddp\n"
        "data:\n  root: /data/imagenet\n  url: http://mirror.example:8080/in1k\n"
        "dist_url: tcp://10.1.2.3:23456\nseed: 42\n";
    for (const char* text : {deepspeed, jupyter, hydra}) {
        EXPECT_TRUE(judge_config_file({"cfg", text, false}, kConfig).empty()) << text;
    }
}

}  // namespace
}  // namespace gpukill::detect

// Command-line signals: stratum URLs, pool endpoints and hosts, algorithms, miner-only
// options and wallet-shaped arguments; and the bounds that keep a huge command line
// cheap. Ordinary training command lines raise nothing.
#include "detect/cmdline_signals.hpp"
#include "detect/endpoints.hpp"

#include <gtest/gtest.h>

#include <chrono>

#include "rogue_test_support.hpp"

namespace gpukill::detect {
namespace {

using rogue_test::find;
using rogue_test::has;

const RogueConfig kConfig = default_rogue_config();
const std::string kMonero =
    "44AFFq5kSiGBoZ4NMDwYtN18obc8AemS33DBLWs3H7otXft3XjrpDtQGv7SqSsaBYBb98uNbr2VBBEt7f2wfn3RVGQBEP3"
    "A";

std::vector<Evidence> judge(std::vector<std::string> cmdline) {
    return judge_command_line(cmdline, kConfig);
}

TEST(RogueCmdline, StratumUrlsInAnyForm) {
    for (const char* url : {"stratum+tcp://pool.example:3333", "stratum+ssl://pool.example:443",
                            "stratum2+tcp://pool.example:3333", "STRATUM+TCP://pool.example:1"}) {
        auto evidence = judge({"./worker", "-o", url});
        const Evidence* stratum = find(evidence, Signal::stratum_url);
        ASSERT_NE(stratum, nullptr) << url;
        EXPECT_EQ(stratum->weight, 60);
        EXPECT_NE(stratum->detail.find(url), std::string::npos) << stratum->detail;
        EXPECT_FALSE(has(evidence, Signal::pool_address)) << "one observation, one piece";
    }
    auto attached = judge({"./worker", "--url=stratum+tcp://10.0.0.1:4444"});
    ASSERT_TRUE(has(attached, Signal::stratum_url));
    EXPECT_NE(find(attached, Signal::stratum_url)->detail.find("\"stratum+tcp://10.0.0.1:4444\""),
              std::string::npos);
}

// Evidence travels to the audit log, syslog and API clients: a URL's credentials, path
// and query never do, only where it points.
TEST(RogueCmdline, EvidenceNamesWhereAUrlPointsNeverItsCredentials) {
    auto evidence = judge({"./worker", "-o",
                           "stratum+tcp://WALLET.rig1:hunter2@pool.example:3333/path?key=s3cret",
                           "--pool", "miner:topsecret@10.1.2.3:14444"});
    const Evidence* stratum = find(evidence, Signal::stratum_url);
    ASSERT_NE(stratum, nullptr);
    EXPECT_NE(stratum->detail.find("\"stratum+tcp://pool.example:3333\""), std::string::npos)
        << stratum->detail;
    const Evidence* pool = find(evidence, Signal::pool_address);
    ASSERT_NE(pool, nullptr);
    EXPECT_NE(pool->detail.find("\"10.1.2.3:14444\""), std::string::npos) << pool->detail;
    for (const Evidence& item : evidence) {
        for (const char* secret : {"hunter2", "s3cret", "topsecret", "rig1", "path"}) {
            EXPECT_EQ(item.detail.find(secret), std::string::npos) << item.detail;
        }
    }
}

TEST(RogueCmdline, PoolOptionWithAPoolPort) {
    auto evidence = judge({"./worker", "-o", "10.1.2.3:14444", "-u", "x"});
    const Evidence* pool = find(evidence, Signal::pool_address);
    ASSERT_NE(pool, nullptr);
    EXPECT_NE(pool->detail.find("port 14444"), std::string::npos) << pool->detail;
    EXPECT_TRUE(has(judge({"ethminer", "-P", "tcp://10.1.2.3:4444"}), Signal::pool_address));
    EXPECT_TRUE(has(judge({"m", "--url=pool.example:5555"}), Signal::pool_address));
    // Another port, or a pool port under an option that is not a pool's: nothing.
    EXPECT_FALSE(has(judge({"./worker", "-o", "10.1.2.3:443"}), Signal::pool_address));
    EXPECT_FALSE(has(judge({"torchrun", "--master-port", "3333"}), Signal::pool_address));
    EXPECT_FALSE(has(judge({"ls", "-o"}), Signal::pool_address));
}

TEST(RogueCmdline, ListedPoolHostsAnywhereByDomainNeverBySubstring) {
    auto evidence = judge({"./w", "--server", "eth.2miners.com", "--port", "2020"});
    const Evidence* pool = find(evidence, Signal::pool_address);
    ASSERT_NE(pool, nullptr);
    EXPECT_NE(pool->detail.find("\"eth.2miners.com\""), std::string::npos) << pool->detail;
    EXPECT_TRUE(has(judge({"./w", "https://supportxmr.com/x"}), Signal::pool_address));
    EXPECT_FALSE(has(judge({"./w", "not2miners.com"}), Signal::pool_address));
    EXPECT_FALSE(has(judge({"./w", "2miners.com.evil"}), Signal::pool_address));
}

TEST(RogueCmdline, MiningAlgorithms) {
    for (std::vector<std::string> cmdline : {std::vector<std::string>{"w", "--algo", "randomx"},
                                             {"w", "-a", "KawPow"},
                                             {"w", "--algo=rx/0"},
                                             {"w", "--algorithm", "autolykos2"}}) {
        EXPECT_TRUE(has(judge(cmdline), Signal::mining_algorithm)) << cmdline[1];
    }
    EXPECT_FALSE(has(judge({"tar", "-a", "-cf", "x.tgz"}), Signal::mining_algorithm));
    EXPECT_FALSE(has(judge({"train", "--algo", "ppo"}), Signal::mining_algorithm));
}

TEST(RogueCmdline, MinerOnlyOptions) {
    auto evidence = judge({"w", "--donate-level", "1"});
    ASSERT_TRUE(has(evidence, Signal::miner_option));
    EXPECT_TRUE(has(judge({"w", "--donate-level=0"}), Signal::miner_option));
    EXPECT_FALSE(has(judge({"w", "--donate-levels"}), Signal::miner_option));
}

TEST(RogueCmdline, WalletShapedArgumentsAsSeparateTokens) {
    const std::string eth = "0x52908400098527886E0F7030069857D2E4169EE7";
    const std::string btc = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";
    const std::string rvn = "RKHmr8tTmxRXdT4aVMMXBbMJ2K6QKjxbA6";
    for (const std::string& wallet : {kMonero, eth, btc, rvn}) {
        auto evidence = judge({"w", "-u", wallet});
        ASSERT_TRUE(has(evidence, Signal::wallet_address)) << wallet;
        EXPECT_EQ(find(evidence, Signal::wallet_address)->weight, 40);
    }
    // A worker name or difficulty after the address, or --user=ADDRESS.
    EXPECT_TRUE(has(judge({"w", "-u", kMonero + ".rig01"}), Signal::wallet_address));
    EXPECT_TRUE(has(judge({"w", "--user=" + eth + "+50000"}), Signal::wallet_address));
    // Inside another word it is not a separate token.
    EXPECT_FALSE(has(judge({"w", "--seed=x" + eth}), Signal::wallet_address));
}

TEST(RogueCmdline, OrdinaryTrainingCommandLinesRaiseNothing) {
    EXPECT_TRUE(judge({"python", "train.py", "--epochs", "10", "--lr", "3e-4", "--batch-size", "64",
                       "--data", "/data/imagenet", "--output", "runs/exp1"})
                    .empty());
    EXPECT_TRUE(judge({"torchrun", "--nproc_per_node=8", "--master_addr=10.0.0.1",
                       "--master_port=29500", "train.py", "--config", "configs/a.yaml"})
                    .empty());
    EXPECT_TRUE(judge({"/usr/bin/python3", "-m", "vllm.entrypoints.openai.api_server", "--model",
                       "meta-llama/Llama-3-8B", "--port", "8000", "--revision",
                       "4b9ba0f2c8e1d3f4a5b6c7d8e9f0a1b2c3d4e5f6"})
                    .empty());
    EXPECT_TRUE(judge({"jupyter-lab", "--ip=0.0.0.0", "--port=8888", "--no-browser"}).empty());
}

TEST(RogueCmdline, HugeCommandLinesAreBoundedAndStillCheap) {
    std::vector<std::string> cmdline = {"w"};
    for (int i = 0; i < 100000; ++i) cmdline.push_back(std::string(64, 'a'));
    cmdline.push_back("stratum+tcp://late.example:3333");  // beyond kMaxTokens: not seen
    cmdline[1] = std::string(10 * 1024 * 1024, ':') + "stratum+tcp://x:1";  // past the byte cap
    const auto start = std::chrono::steady_clock::now();
    auto evidence = judge_command_line(cmdline, kConfig);
    const auto elapsed = std::chrono::steady_clock::now() - start;
    EXPECT_TRUE(evidence.empty());
    EXPECT_LT(elapsed, std::chrono::seconds(1));
}

TEST(RogueEndpoints, ParsesHostsPortsSchemesAndBrackets) {
    auto url = parse_endpoint("stratum+tcp://wallet@pool.example:3333/path");
    ASSERT_TRUE(url);
    EXPECT_EQ(url->scheme, "stratum+tcp");
    EXPECT_EQ(url->host, "pool.example");
    EXPECT_EQ(url->port, 3333);
    auto v6 = parse_endpoint("[2001:db8::1]:4444");
    ASSERT_TRUE(v6);
    EXPECT_EQ(v6->host, "2001:db8::1");
    EXPECT_EQ(v6->port, 4444);
    auto bare = parse_endpoint("pool.example");
    ASSERT_TRUE(bare);
    EXPECT_FALSE(bare->port);
    EXPECT_FALSE(parse_endpoint("host:99999"));
    EXPECT_FALSE(parse_endpoint("a b:1"));
    EXPECT_FALSE(parse_endpoint(""));
}

}  // namespace
}  // namespace gpukill::detect

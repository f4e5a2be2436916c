// Name signals: known miners by executable, comm or argv[0]; names a process claims
// but its executable is not (masquerade); and the honest differences (scripts,
// versioned interpreters behind symlinks, comm's 15-byte cut) that must not count.
#include "detect/name_signals.hpp"
#include "detect/names.hpp"

#include <gtest/gtest.h>

#include "rogue_test_support.hpp"

namespace gpukill::detect {
namespace {

using rogue_test::find;
using rogue_test::has;
using rogue_test::process;

const RogueConfig kConfig = default_rogue_config();

TEST(RogueNames, PatternsAreExactOrTrailingStarPrefixesIgnoringCase) {
    EXPECT_TRUE(name_matches("xmrig", "xmrig*"));
    EXPECT_TRUE(name_matches("XMRig-6.21", "xmrig*"));
    EXPECT_TRUE(name_matches("T-Rex", "t-rex"));
    EXPECT_FALSE(name_matches("t-rex2", "t-rex"));
    EXPECT_FALSE(name_matches("python-xmrig", "xmrig*"));
    EXPECT_FALSE(name_matches("", "xmrig*"));
}

TEST(RogueNames, SameProgramAllowsVersionsAndCommTruncationOnly) {
    EXPECT_TRUE(same_program("python", "python3.11"));
    EXPECT_TRUE(same_program("python3", "python3.11"));
    EXPECT_TRUE(same_program("node", "node-18"));
    EXPECT_TRUE(same_program("nvidia-persiste", "nvidia-persistenced"));
    EXPECT_FALSE(same_program("python", "python-xmrig"));
    EXPECT_FALSE(same_program("python", "gpusim"));
    EXPECT_FALSE(same_program("python", "pythonic"));
    EXPECT_FALSE(same_program("", "python"));
}

TEST(RogueNames, Argv0NameIsTheProgramItClaims) {
    EXPECT_EQ(argv0_name("/usr/bin/python3"), "python3");
    EXPECT_EQ(argv0_name("sshd: alice@pts/0"), "sshd");
    EXPECT_EQ(argv0_name("-bash"), "bash");
    EXPECT_EQ(argv0_name(""), std::nullopt);
}

TEST(RogueNames, KnownMinerByExecutable) {
    auto evidence =
        judge_names(process("xmrig", "/opt/x/xmrig", {"./xmrig", "-c", "c.json"}), kConfig);
    const Evidence* miner = find(evidence, Signal::miner_name);
    ASSERT_NE(miner, nullptr);
    EXPECT_EQ(miner->weight, 60);
    EXPECT_NE(miner->detail.find("executable \"xmrig\""), std::string::npos) << miner->detail;
    EXPECT_FALSE(has(evidence, Signal::masquerade));
    EXPECT_FALSE(has(evidence, Signal::name_mismatch));
}

TEST(RogueNames, KnownMinerRenamedToPythonIsAMasquerade) {
    auto evidence =
        judge_names(process("python", "/home/bob/.cache/xmrig", {"python", "train.py"}), kConfig);
    EXPECT_TRUE(has(evidence, Signal::miner_name));
    const Evidence* posing = find(evidence, Signal::masquerade);
    ASSERT_NE(posing, nullptr);
    EXPECT_NE(posing->detail.find("calls itself \"python\" but runs \"/home/bob/.cache/xmrig\""),
              std::string::npos)
        << posing->detail;
}

TEST(RogueNames, KnownMinerByCommAloneWhenTheExecutableIsUnreadable) {
    auto evidence = judge_names(process("nbminer", std::nullopt, {"./nbminer"}), kConfig);
    EXPECT_TRUE(has(evidence, Signal::miner_name));
}

TEST(RogueNames, RealPythonInterpretersAreNotMasquerades) {
    // python -> python3.11 through symlinks; PyTorch renames its main thread.
    EXPECT_TRUE(
        judge_names(process("python", "/usr/bin/python3.11", {"python", "train.py"}), kConfig)
            .empty());
    EXPECT_TRUE(
        judge_names(process("python3", "/opt/conda/bin/python3.10", {"python3", "x.py"}), kConfig)
            .empty());
    EXPECT_TRUE(judge_names(process("pt_main_thread", "/usr/bin/python3.11",
                                    {"/usr/bin/python3", "train.py"}),
                            kConfig)
                    .empty());
    // A script run through its shebang: comm is the script's name, argv[0] the interpreter.
    EXPECT_TRUE(
        judge_names(process("train.py", "/usr/bin/python3.11", {"/usr/bin/python3", "./train.py"}),
                    kConfig)
            .empty());
}

TEST(RogueNames, SomethingCalledPythonThatIsNotPythonIsAMasquerade) {
    auto evidence =
        judge_names(process("python", "/work/build/bin/gpusim", {"python", "run"}), kConfig);
    const Evidence* posing = find(evidence, Signal::masquerade);
    ASSERT_NE(posing, nullptr);
    EXPECT_EQ(posing->weight, 40);
    EXPECT_FALSE(has(evidence, Signal::miner_name));
    EXPECT_FALSE(has(evidence, Signal::name_mismatch)) << "the masquerade covers it";
}

TEST(RogueNames, KernelThreadNamesOnUserProcessesAreMasquerades) {
    auto bracketed = judge_names(process("kworker/0:1", "/tmp/.x/k", {"[kworker/0:1]"}), kConfig);
    const Evidence* posing = find(bracketed, Signal::masquerade);
    ASSERT_NE(posing, nullptr);
    EXPECT_NE(posing->detail.find("kernel thread"), std::string::npos) << posing->detail;

    // Bracketed argv[0] is judged even when the executable cannot be read.
    auto unreadable = judge_names(process("x", std::nullopt, {"[kthreadd]"}), kConfig);
    EXPECT_TRUE(has(unreadable, Signal::masquerade));

    auto systemd =
        judge_names(process("systemd-journal", "/dev/shm/j", {"systemd-journald"}), kConfig);
    EXPECT_TRUE(has(systemd, Signal::masquerade));
}

TEST(RogueNames, RealSystemProgramsAreNotMasquerades) {
    EXPECT_TRUE(judge_names(process("systemd-journal", "/usr/lib/systemd/systemd-journald",
                                    {"/lib/systemd/systemd-journald"}),
                            kConfig)
                    .empty());
    EXPECT_TRUE(judge_names(process("bash", "/usr/bin/bash", {"-bash"}), kConfig).empty());
}

TEST(RogueNames, KernelThreadsRaiseNothing) {
    ProcessInfo kthread = process("kworker/0:1", std::nullopt, {});
    kthread.kernel_thread = true;
    EXPECT_TRUE(judge_names(kthread, kConfig).empty());
}

TEST(RogueNames, OtherRenamingIsAWeakMismatch) {
    auto evidence = judge_names(process("trainer", "/opt/bin/worker", {"trainer"}), kConfig);
    const Evidence* mismatch = find(evidence, Signal::name_mismatch);
    ASSERT_NE(mismatch, nullptr);
    EXPECT_EQ(mismatch->weight, 10);
    EXPECT_LT(mismatch->weight, kConfig.report_threshold);
}

TEST(RogueNames, AWeightOfZeroSwitchesASignalOff) {
    RogueConfig config = default_rogue_config();
    config.set_weight(Signal::miner_name, 0);
    EXPECT_FALSE(
        has(judge_names(process("xmrig", "/opt/xmrig", {"xmrig"}), config), Signal::miner_name));
}

}  // namespace
}  // namespace gpukill::detect

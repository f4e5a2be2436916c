// A job's account as slurmctld records it, from `scontrol --oneliner show job` (Slurm
// 22.05's record format), and the per-job cache in front of the program.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "host/slurm_accounts.hpp"

namespace gpukill {
namespace {

constexpr const char* kHeldJob =
    "JobId=4242 JobName=wrap UserId=ann(1000) GroupId=ann(1000) MCS_label=N/A Priority=0 "
    "Nice=0 Account=vision QOS=(null) JobState=PENDING Reason=JobHeldUser Dependency=(null) "
    "Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0 Partition=debug "
    "WorkDir=/home/ann Comment=Account=physics StdOut=/home/ann/slurm-4242.out Power=\n";

TEST(SlurmAccounts, TheAccountIsTheRecordsOwnFieldForExactlyThatJob) {
    EXPECT_EQ(parse_scontrol_account(kHeldJob, "4242"), "vision");
    // Another job's record, a prefix of the id, and a field that merely contains
    // "Account=" (a comment the user wrote) name nothing.
    EXPECT_EQ(parse_scontrol_account(kHeldJob, "424"), std::nullopt);
    EXPECT_EQ(parse_scontrol_account(kHeldJob, "42420"), std::nullopt);
    const std::string two = std::string("JobId=7 Account=physics JobState=RUNNING\n") + kHeldJob;
    EXPECT_EQ(parse_scontrol_account(two, "7"), "physics");
    EXPECT_EQ(parse_scontrol_account(two, "4242"), "vision");
    EXPECT_EQ(parse_scontrol_account("JobId=9 Account=(null) JobState=PENDING\n", "9"),
              std::nullopt);
    EXPECT_EQ(parse_scontrol_account("slurm_load_jobs error: Invalid job id specified\n", "9"),
              std::nullopt);
    EXPECT_EQ(parse_scontrol_account("", "9"), std::nullopt);
}

// A stand-in scontrol that records each question in a file: the cache asks once per job.
class CountingScontrol {
  public:
    CountingScontrol() {
        dir_ = std::filesystem::temp_directory_path() /
               ("gpukill-scontrol-" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir_);
        std::ofstream(program()) << "#!/bin/sh\necho \"$4\" >> " << log() << "\n"
                                 << "echo \"JobId=$4 JobName=x Account=acct$4 JobState=RUNNING\"\n";
        ::chmod(program().c_str(), 0700);
    }
    ~CountingScontrol() { std::filesystem::remove_all(dir_); }
    std::string program() const { return (dir_ / "scontrol").string(); }
    std::string log() const { return (dir_ / "asked").string(); }
    int questions() const {
        std::ifstream in(log());
        int lines = 0;
        for (std::string line; std::getline(in, line);) ++lines;
        return lines;
    }

  private:
    std::filesystem::path dir_;
};

TEST(SlurmAccounts, EachJobIsAskedOnceUntilItsAnswerExpires) {
    CountingScontrol scontrol;
    SlurmAccounts accounts(scontrol.program(), std::chrono::seconds(60), std::chrono::seconds(5));
    const auto t0 = SlurmAccounts::Clock::now();
    EXPECT_EQ(accounts.account_of("11", t0), "acct11");
    EXPECT_EQ(accounts.account_of("11", t0 + std::chrono::seconds(59)), "acct11");
    EXPECT_EQ(accounts.account_of("12", t0), "acct12");
    EXPECT_EQ(scontrol.questions(), 2);
    EXPECT_EQ(accounts.account_of("11", t0 + std::chrono::seconds(61)), "acct11");
    EXPECT_EQ(scontrol.questions(), 3);
    // Not a job id: never handed to the program.
    EXPECT_EQ(accounts.account_of("11; rm -rf /", t0), std::nullopt);
    EXPECT_EQ(accounts.account_of("", t0), std::nullopt);
    EXPECT_EQ(scontrol.questions(), 3);
    EXPECT_FALSE(accounts.problem());
}

TEST(SlurmAccounts, WithoutScontrolEveryAccountIsUnknownAndTheProblemSaysWhy) {
    SlurmAccounts accounts(std::nullopt);
    EXPECT_EQ(accounts.account_of("11", SlurmAccounts::Clock::now()), std::nullopt);
    ASSERT_TRUE(accounts.problem());
    EXPECT_NE(accounts.problem()->find("scontrol is not installed"), std::string::npos);
}

}  // namespace
}  // namespace gpukill

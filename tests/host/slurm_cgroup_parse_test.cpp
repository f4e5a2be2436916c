#include <gtest/gtest.h>

#include "host/proc_parse.hpp"

namespace gpukill {
namespace {

TEST(SlurmJobFromCgroup, ReadsCgroupV1WithUidAndStep) {
    auto job = parse_slurm_job(
        "12:pids:/slurm/uid_1000/job_4242/step_0/task_1\n"
        "11:memory:/slurm/uid_1000/job_4242/step_0/task_1\n"
        "1:name=systemd:/system.slice/slurmd.service\n");
    ASSERT_TRUE(job);
    EXPECT_EQ(job->job_id, "4242");
    EXPECT_EQ(job->step, "0");
    EXPECT_EQ(job->uid, 1000u);
}

TEST(SlurmJobFromCgroup, ReadsCgroupV2UnderSlurmstepd) {
    auto job = parse_slurm_job("0::/system.slice/slurmstepd.scope/job_77/step_batch/user/task_0\n");
    ASSERT_TRUE(job);
    EXPECT_EQ(job->job_id, "77");
    EXPECT_EQ(job->step, "batch");
    EXPECT_FALSE(job->uid);
}

TEST(SlurmJobFromCgroup, ReadsMultipleSlurmdNamesAndDeletedCgroups) {
    auto job = parse_slurm_job("4:memory:/slurm_node07/uid_0/job_9/step_extern (deleted)\n");
    ASSERT_TRUE(job);
    EXPECT_EQ(job->job_id, "9");
    EXPECT_EQ(job->step, "extern");
    EXPECT_EQ(job->uid, 0u);
    auto no_step = parse_slurm_job("0::/system.slice/slurmstepd.scope/job_5\n");
    ASSERT_TRUE(no_step);
    EXPECT_FALSE(no_step->step);
}

TEST(SlurmJobFromCgroup, IgnoresJobDirectoriesOutsideSlurm) {
    for (const char* text :
         {"0::/user.slice/user-1000.slice/job_12\n", "0::/\n", "0::/system.slice/slurmd.service\n",
          "0::/slurm/uid_1/job_x1/step_0\n", "0::/slurm/uid_1/job_/step_0\n", "garbage\n", ""}) {
        EXPECT_FALSE(parse_slurm_job(text)) << text;
    }
}

}  // namespace
}  // namespace gpukill

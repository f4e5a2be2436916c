// Aggregating history samples: how much time a sample stands for, per-process rows,
// and the summary by user, process name, GPU and hour. Constructed samples only.
#include <gtest/gtest.h>

#include "history/usage_summary.hpp"
#include "usage_test_support.hpp"

namespace gpukill::history {
namespace {

using namespace usage_test;

ProcessSample sample(std::int64_t time, pid_t pid, const std::string& user, unsigned gpu,
                     std::optional<std::uint64_t> memory,
                     std::optional<unsigned> utilization = 90) {
    ProcessSample s;
    s.time_unix_ms = time;
    s.gpu_index = gpu;
    s.pid = pid;
    s.start_time_ticks = 100;
    s.uid = user == "alice" ? 1000u : 1001u;
    s.user = user;
    s.name = pid < 200 ? "python" : "llama";
    s.command = s.name + " run.py";
    s.memory_bytes = memory;
    s.gpu_utilization_percent = utilization;
    return s;
}

GpuSample gpu_sample(std::int64_t time, unsigned gpu, std::optional<unsigned> utilization,
                     unsigned processes, std::uint64_t used = kGiB) {
    GpuSample s;
    s.time_unix_ms = time;
    s.gpu_index = gpu;
    s.gpu_name = "H100";
    s.utilization_percent = utilization;
    s.process_count = processes;
    s.memory_used_bytes = used;
    s.memory_total_bytes = 80 * kGiB;
    return s;
}

int utc_hour(std::int64_t unix_ms) {
    return static_cast<int>((unix_ms / kHour) % 24);
}

TEST(SampleWeights, EachSampleCountsUntilTheNextOneUpToTwiceTheUsualInterval) {
    // Every 10 s, then a 1-hour gap, then two more: the gap is credited 20 s, not an hour.
    const std::vector<std::int64_t> instants = {kBase, kBase + 10 * kSecond, kBase + 20 * kSecond,
                                                kBase + 20 * kSecond + kHour,
                                                kBase + 30 * kSecond + kHour};
    const SampleWeights w = sample_weights(instants, kBase + 35 * kSecond + kHour);
    EXPECT_EQ(w.instants, 5u);
    EXPECT_EQ(w.typical_interval_ms, 10 * kSecond);
    EXPECT_EQ(w.cap_ms, 20 * kSecond);
    EXPECT_DOUBLE_EQ(w.hours.at(kBase), 10.0 / 3600);
    EXPECT_DOUBLE_EQ(w.hours.at(kBase + 20 * kSecond), 20.0 / 3600);         // before the gap
    EXPECT_DOUBLE_EQ(w.hours.at(kBase + 30 * kSecond + kHour), 5.0 / 3600);  // until the end
}

TEST(SampleWeights, SparseSamplesAreCappedAtFifteenMinutes) {
    // One `list` a day: each is credited 15 minutes, not a day.
    const SampleWeights w =
        sample_weights({kBase, kBase + kDay, kBase + 2 * kDay}, kBase + 3 * kDay);
    EXPECT_EQ(w.cap_ms, 15 * kMinute);
    for (const auto& [time, hours] : w.hours) EXPECT_DOUBLE_EQ(hours, 0.25);
}

TEST(SampleWeights, OneSampleCreditsNothingAndDuplicatesCountOnce) {
    const SampleWeights one = sample_weights({kBase, kBase}, kBase + kHour);
    EXPECT_EQ(one.instants, 1u);
    EXPECT_FALSE(one.typical_interval_ms);
    EXPECT_EQ(one.hours.at(kBase), 0);
    EXPECT_EQ(sample_weights({}, kBase).instants, 0u);
}

TEST(SummarizeProcesses, OneRowPerIdentityWithPeaksAveragesAndGpuHours) {
    std::vector<ProcessSample> samples;
    for (int i = 0; i < 4; ++i) {
        const std::int64_t t = kBase + i * kMinute;
        // pid 100 on GPUs 0 and 1: 1 GiB + (1..4) GiB.
        samples.push_back(sample(t, 100, "alice", 0, kGiB, 80));
        samples.push_back(
            sample(t, 100, "alice", 1, static_cast<std::uint64_t>(i + 1) * kGiB, 100));
    }
    samples.push_back(sample(kBase + 2 * kMinute, 300, "bob", 1, std::nullopt, std::nullopt));
    ProcessSample reused = sample(kBase + 3 * kMinute, 100, "bob", 0, kGiB);
    reused.start_time_ticks = 999;  // the same PID, another process
    samples.push_back(reused);

    const SampleWeights w = sample_weights(sample_instants({}, samples), kBase + 4 * kMinute);
    const auto rows = summarize_processes(samples, w);
    ASSERT_EQ(rows.size(), 3u);
    const ProcessUsage& trainer = rows[0];
    EXPECT_EQ(trainer.pid, 100);
    EXPECT_EQ(trainer.start_time_ticks, 100u);
    EXPECT_EQ(trainer.gpus, (std::vector<unsigned>{0, 1}));
    EXPECT_EQ(trainer.samples, 4u);
    EXPECT_EQ(trainer.first_seen_unix_ms, kBase);
    EXPECT_EQ(trainer.last_seen_unix_ms, kBase + 3 * kMinute);
    EXPECT_EQ(trainer.peak_memory_bytes, 5 * kGiB);
    EXPECT_EQ(trainer.average_memory_bytes, 3 * kGiB + kGiB / 2);
    EXPECT_DOUBLE_EQ(*trainer.average_gpu_utilization_percent, 90);
    EXPECT_FALSE(trainer.average_process_utilization_percent);
    // Two GPUs for four minutes (the last sample stands for the minute up to `until`).
    EXPECT_NEAR(trainer.gpu_hours, 8.0 / 60, 1e-9);
    EXPECT_EQ(rows[1].pid, 300);
    EXPECT_FALSE(rows[1].peak_memory_bytes);
    EXPECT_FALSE(rows[1].average_gpu_utilization_percent);
    EXPECT_EQ(rows[2].pid, 100);
    EXPECT_EQ(rows[2].start_time_ticks, 999u);
    EXPECT_EQ(rows[2].user, "bob");
}

TEST(SummarizeUsage, ByUserByNameByGpuAndByHour) {
    std::vector<ProcessSample> processes;
    std::vector<GpuSample> gpus;
    for (int i = 0; i < 6; ++i) {
        const std::int64_t t = kBase + i * 20 * kMinute;  // every 20 min, 00:00 to 01:40 UTC
        processes.push_back(sample(t, 100, "alice", 0, 2 * kGiB));
        processes.push_back(sample(t, 101, "alice", 1, 3 * kGiB));
        if (i < 3) processes.push_back(sample(t, 300, "bob", 1, kGiB));
        gpus.push_back(gpu_sample(t, 0, 90, 1, 2 * kGiB));
        gpus.push_back(gpu_sample(t, 1, i < 3 ? 60 : 30, i < 3 ? 2 : 1, 4 * kGiB));
        gpus.push_back(gpu_sample(t, 2, 0, 0, 0));
    }
    const SampleWeights w = sample_weights(sample_instants(gpus, processes), kBase + 2 * kHour);
    ASSERT_EQ(w.cap_ms, 15 * kMinute);  // 20-min samples are capped: 15 min each
    const UsageSummary s = summarize_usage(gpus, processes, w, utc_hour);

    ASSERT_EQ(s.users.size(), 2u);
    EXPECT_EQ(s.users[0].key, "alice");
    EXPECT_EQ(s.users[0].uid, 1000u);
    EXPECT_NEAR(s.users[0].gpu_hours, 12 * 0.25, 1e-9);
    EXPECT_EQ(s.users[0].peak_memory_bytes, 5 * kGiB);  // both processes at once
    EXPECT_EQ(s.users[0].processes, 2u);
    EXPECT_EQ(s.users[1].key, "bob");
    EXPECT_NEAR(s.users[1].gpu_hours, 3 * 0.25, 1e-9);
    EXPECT_NEAR(s.total_gpu_hours, 15 * 0.25, 1e-9);

    ASSERT_EQ(s.processes.size(), 2u);
    EXPECT_EQ(s.processes[0].key, "python");
    EXPECT_EQ(s.processes[0].users, (std::vector<std::string>{"alice"}));
    EXPECT_EQ(s.processes[1].key, "llama");

    ASSERT_EQ(s.gpus.size(), 3u);
    EXPECT_EQ(s.gpus[0].index, 0u);  // busiest first
    EXPECT_DOUBLE_EQ(*s.gpus[0].average_utilization_percent, 90);
    EXPECT_EQ(s.gpus[1].index, 1u);
    EXPECT_DOUBLE_EQ(*s.gpus[1].average_utilization_percent, 45);
    EXPECT_EQ(s.gpus[1].peak_utilization_percent, 60u);
    EXPECT_EQ(s.gpus[1].peak_memory_used_bytes, 4 * kGiB);
    EXPECT_EQ(s.gpus[1].memory_total_bytes, 80 * kGiB);
    EXPECT_NEAR(s.gpus[0].gpu_hours_in_use, 6 * 0.25, 1e-9);
    EXPECT_EQ(s.gpus[2].gpu_hours_in_use, 0);  // never held by a process

    ASSERT_EQ(s.by_hour.size(), 24u);
    EXPECT_EQ(s.by_hour[0].samples, 9u);  // 00:00, 00:20, 00:40 x 3 GPUs
    EXPECT_NEAR(s.by_hour[0].gpu_hours, 9 * 0.25, 1e-9);
    EXPECT_NEAR(*s.by_hour[0].average_utilization_percent, (90 + 60 + 0) / 3.0, 1e-9);
    EXPECT_NEAR(s.by_hour[1].gpu_hours, 6 * 0.25, 1e-9);
    EXPECT_EQ(s.by_hour[2].samples, 0u);
    EXPECT_FALSE(s.by_hour[2].average_utilization_percent);
}

TEST(FilterSamples, UsersMatchExactlyByNameOrUid) {
    std::vector<ProcessSample> samples = {sample(kBase, 100, "alice", 0, kGiB),
                                          sample(kBase, 300, "bob", 0, kGiB)};
    auto by_name = filter_samples(samples, std::string("alice"), std::nullopt);
    ASSERT_EQ(by_name.size(), 1u);
    EXPECT_EQ(by_name[0].user, "alice");
    auto by_uid = filter_samples(samples, std::string("1001"), std::nullopt);
    ASSERT_EQ(by_uid.size(), 1u);
    EXPECT_EQ(by_uid[0].user, "bob");
    EXPECT_TRUE(filter_samples(samples, std::string("ali"), std::nullopt).empty());
    EXPECT_TRUE(filter_samples(samples, std::string("Alice"), std::nullopt).empty());
}

TEST(FilterSamples, ThePatternIsSearchedInNameAndCommand) {
    std::vector<ProcessSample> samples = {sample(kBase, 100, "alice", 0, kGiB),
                                          sample(kBase, 300, "bob", 0, kGiB)};
    samples[1].command = "llama --model /models/mistral-7b.gguf";
    auto pattern = compile_process_pattern("^pyth");
    ASSERT_TRUE(pattern);
    auto by_name = filter_samples(samples, std::nullopt, *pattern);
    ASSERT_EQ(by_name.size(), 1u);
    EXPECT_EQ(by_name[0].pid, 100);
    auto by_command = filter_samples(samples, std::nullopt, *compile_process_pattern("mistral"));
    ASSERT_EQ(by_command.size(), 1u);
    EXPECT_EQ(by_command[0].pid, 300);
    auto both = filter_samples(samples, std::string("alice"), *compile_process_pattern("mistral"));
    EXPECT_TRUE(both.empty());
}

TEST(FilterSamples, AnInvalidPatternIsAnError) {
    auto pattern = compile_process_pattern("python(");
    ASSERT_FALSE(pattern);
    EXPECT_EQ(pattern.error().what.rfind("invalid --audit-process: ", 0), 0u)
        << pattern.error().what;
}

}  // namespace
}  // namespace gpukill::history

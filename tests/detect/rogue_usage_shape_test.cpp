// Usage shape from history: sustained full load with small flat memory is mining-like;
// training's large or varying memory is not; too little history, shared GPUs and gaps
// are "not judged", said so.
#include "detect/usage_shape.hpp"

#include <gtest/gtest.h>

namespace gpukill::detect {
namespace {

constexpr std::int64_t kMinute = 60 * 1000;
constexpr std::uint64_t kMiB = 1024 * 1024;
const RogueConfig kConfig = default_rogue_config();

// One sample a minute for `minutes` minutes (inclusive of both ends).
std::vector<history::ProcessSample> series(int minutes, unsigned util, std::uint64_t memory,
                                           unsigned processes_on_gpu = 1, unsigned gpu = 0) {
    std::vector<history::ProcessSample> samples;
    for (int i = 0; i <= minutes; ++i) {
        history::ProcessSample sample;
        sample.time_unix_ms = 1'700'000'000'000 + i * kMinute;
        sample.gpu_index = gpu;
        sample.pid = 4242;
        sample.memory_bytes = memory;
        sample.gpu_utilization_percent = util;
        sample.gpu_process_count = processes_on_gpu;
        samples.push_back(sample);
    }
    return samples;
}

TEST(RogueUsageShape, FullLoadWithSmallFlatMemoryIsMiningLike) {
    auto verdict = judge_usage_shape(series(45, 99, 256 * kMiB), kConfig);
    EXPECT_TRUE(verdict.judged);
    ASSERT_TRUE(verdict.evidence);
    EXPECT_EQ(verdict.evidence->signal, Signal::mining_usage_shape);
    EXPECT_EQ(verdict.evidence->weight, 40);
    // How long the shape was observed, in the evidence itself.
    EXPECT_NE(verdict.evidence->detail.find(
                  "GPU 0 at >= 90% for 45 minutes (46 samples, in 45.0 minutes of history)"),
              std::string::npos)
        << verdict.evidence->detail;
    ASSERT_TRUE(verdict.busy_minutes);
    EXPECT_DOUBLE_EQ(*verdict.busy_minutes, 45.0);
    EXPECT_NE(verdict.evidence->detail.find("256 MiB"), std::string::npos);
}

TEST(RogueUsageShape, TrainingsLargeMemoryIsNot) {
    auto verdict = judge_usage_shape(series(120, 100, 30ull * 1024 * kMiB), kConfig);
    EXPECT_TRUE(verdict.judged);
    EXPECT_FALSE(verdict.evidence);
    // Busy all the same: what busy_pool_connection asks, whatever the memory.
    ASSERT_TRUE(verdict.busy_minutes);
    EXPECT_DOUBLE_EQ(*verdict.busy_minutes, 120.0);
    EXPECT_NE(verdict.note.find("large"), std::string::npos) << verdict.note;
}

TEST(RogueUsageShape, VaryingSmallMemoryIsNot) {
    auto samples = series(60, 100, 512 * kMiB);
    for (std::size_t i = 0; i < samples.size(); i += 2) samples[i].memory_bytes = 900 * kMiB;
    auto verdict = judge_usage_shape(samples, kConfig);
    EXPECT_TRUE(verdict.judged);
    EXPECT_FALSE(verdict.evidence);
    EXPECT_NE(verdict.note.find("varying"), std::string::npos) << verdict.note;
}

TEST(RogueUsageShape, IdleOrShortBurstsAreNot) {
    auto idle = judge_usage_shape(series(60, 20, 100 * kMiB), kConfig);
    EXPECT_TRUE(idle.judged);
    EXPECT_FALSE(idle.evidence);
    EXPECT_NE(idle.note.find("never at >= 90%"), std::string::npos) << idle.note;
    EXPECT_FALSE(idle.busy_minutes);

    // Busy for 7 minutes at a time, under the 10 needed.
    auto bursts = series(60, 100, 100 * kMiB);
    for (std::size_t i = 8; i < bursts.size(); i += 8) bursts[i].gpu_utilization_percent = 10;
    auto verdict = judge_usage_shape(bursts, kConfig);
    EXPECT_FALSE(verdict.evidence);
    EXPECT_FALSE(verdict.busy_minutes);
}

TEST(RogueUsageShape, TooLittleHistoryIsNotJudged) {
    auto verdict = judge_usage_shape(series(5, 100, 100 * kMiB), kConfig);
    EXPECT_FALSE(verdict.judged);
    EXPECT_FALSE(verdict.evidence);
    EXPECT_NE(verdict.note.find("6 samples over 5.0 minutes of history (needs 10)"),
              std::string::npos)
        << verdict.note;
    auto one = judge_usage_shape(series(0, 100, 100 * kMiB), kConfig);
    EXPECT_NE(one.note.find("1 sample over 0.0 minutes of history"), std::string::npos) << one.note;
    auto none = judge_usage_shape({}, kConfig);
    EXPECT_FALSE(none.judged);
    EXPECT_NE(none.note.find("no samples"), std::string::npos);
}

TEST(RogueUsageShape, ASharedGpusLoadIsNotAttributed) {
    auto shared = judge_usage_shape(series(60, 100, 100 * kMiB, 3), kConfig);
    EXPECT_FALSE(shared.evidence);
    // ... unless the driver reports the process's own share.
    auto samples = series(60, 100, 100 * kMiB, 3);
    for (auto& sample : samples) sample.process_utilization_percent = 97;
    EXPECT_TRUE(judge_usage_shape(samples, kConfig).evidence);
}

TEST(RogueUsageShape, GapsBreakAStretch) {
    auto samples = series(8, 100, 100 * kMiB);
    auto later = series(8, 100, 100 * kMiB);
    for (auto& sample : later) sample.time_unix_ms += 60 * kMinute;  // an hour unobserved
    samples.insert(samples.end(), later.begin(), later.end());
    auto verdict = judge_usage_shape(samples, kConfig);
    EXPECT_TRUE(verdict.judged);
    EXPECT_FALSE(verdict.evidence);
}

TEST(RogueUsageShape, TenMinutesOfSamplesAreEnough) {
    // The agent samples continuously: ten minutes of it judge the shape.
    auto verdict = judge_usage_shape(series(10, 100, 100 * kMiB), kConfig);
    EXPECT_TRUE(verdict.judged);
    ASSERT_TRUE(verdict.evidence) << verdict.note;
    EXPECT_NE(verdict.evidence->detail.find("for 10 minutes (11 samples, in 10.0 minutes"),
              std::string::npos)
        << verdict.evidence->detail;
}

TEST(RogueUsageShape, EachGpuOnItsOwnAndThresholdsFromTheConfig) {
    auto samples = series(40, 100, 64 * kMiB, 1, 1);
    auto other = series(40, 5, 64 * kMiB, 1, 0);
    samples.insert(samples.end(), other.begin(), other.end());
    auto verdict = judge_usage_shape(samples, kConfig);
    ASSERT_TRUE(verdict.evidence);
    EXPECT_NE(verdict.evidence->detail.find("GPU 1"), std::string::npos);

    RogueConfig strict = default_rogue_config();
    strict.usage_shape.min_minutes = 60;
    EXPECT_FALSE(judge_usage_shape(series(45, 99, 64 * kMiB), strict).evidence);
    strict.usage_shape.min_minutes = 0.05;  // three seconds
    EXPECT_TRUE(judge_usage_shape(series(1, 99, 64 * kMiB), strict).evidence);
}

TEST(RogueUsageShape, MostlyUnknownMemoryIsNotJudged) {
    auto samples = series(60, 100, 100 * kMiB);
    for (auto& sample : samples) sample.memory_bytes.reset();
    auto verdict = judge_usage_shape(samples, kConfig);
    EXPECT_FALSE(verdict.judged);
    EXPECT_FALSE(verdict.evidence);
    EXPECT_NE(verdict.note.find("memory is mostly unknown"), std::string::npos) << verdict.note;
    EXPECT_TRUE(verdict.busy_minutes) << "busy is known without the memory";
}

}  // namespace
}  // namespace gpukill::detect

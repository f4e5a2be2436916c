// The pod namespace resolver over a real directory laid out as the kubelet lays out
// /var/log/pods: names found, a new pod found by listing again, the listing rate-limited
// for pods that have no directory, and a missing directory harmless.
#include "host/pod_namespaces.hpp"

#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>

namespace gpukill {
namespace {

using namespace std::chrono_literals;

class PodLogDir : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() /
               ("gpukill-pod-logs-" + std::to_string(::getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }
    void add_pod(const std::string& name) { std::filesystem::create_directory(dir_ / name); }

    std::filesystem::path dir_;
};

constexpr const char* kTrainer = "0d1e2f3a-1111-2222-3333-444455556666";
constexpr const char* kLater = "9a8b7c6d-1111-2222-3333-444455556666";

TEST_F(PodLogDir, APodsNamespaceIsItsLogDirectorysFirstPart) {
    add_pod(std::string("vision-train_trainer-7f9c_") + kTrainer);
    add_pod("kube-system_coredns-5d78_aaaa");
    PodNamespaces pods(dir_.string());
    const auto t0 = PodNamespaces::Clock::time_point{} + 1000s;
    EXPECT_EQ(pods.namespace_of(kTrainer, t0), "vision-train");
    EXPECT_EQ(pods.namespace_of("aaaa", t0), "kube-system");
}

TEST_F(PodLogDir, ANewPodIsFoundByListingAgainButNotMoreThanOncePerInterval) {
    add_pod(std::string("vision-train_trainer-7f9c_") + kTrainer);
    PodNamespaces pods(dir_.string(), 60s);
    const auto t0 = PodNamespaces::Clock::time_point{} + 1000s;
    EXPECT_EQ(pods.namespace_of(kTrainer, t0), "vision-train");
    EXPECT_FALSE(pods.namespace_of(kLater, t0 + 1s)) << "listed a second ago";
    add_pod(std::string("eval_job-1_") + kLater);
    EXPECT_FALSE(pods.namespace_of(kLater, t0 + 59s)) << "still within the interval";
    EXPECT_EQ(pods.namespace_of(kLater, t0 + 61s), "eval");
    EXPECT_EQ(pods.namespace_of(kTrainer, t0 + 61s), "vision-train");
    // A pod whose directory went away is forgotten at the next listing.
    std::filesystem::remove_all(dir_ / (std::string("vision-train_trainer-7f9c_") + kTrainer));
    EXPECT_FALSE(pods.namespace_of("unknown", t0 + 200s));
    EXPECT_FALSE(pods.namespace_of(kTrainer, t0 + 200s));
}

TEST_F(PodLogDir, WithoutTheDirectoryNothingIsKnownAndNothingFails) {
    PodNamespaces pods((dir_ / "absent").string());
    EXPECT_FALSE(pods.namespace_of(kTrainer, PodNamespaces::Clock::time_point{} + 1000s));
}

}  // namespace
}  // namespace gpukill

// Images and pods from the bundles containerd and CRI-O write: the documented formats
// (tests/fixtures/cri, each naming its version and source) parsed, the layouts read under
// a relocated run directory, and every bundle that is not the runtime's plain record
// refused with the image left unknown: missing, cut short, too large, a FIFO, writable by
// all, or reached through a symbolic link out of the runtime's directory.
#include "host/cri_bundle.hpp"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "../integration/cri_node.hpp"
#include "host_test_support.hpp"

namespace gpukill {
namespace {

using host_test::fixture;
using host_test::make_symlink;
using host_test::TempDir;
using host_test::write_file;
using namespace std::chrono_literals;

constexpr std::size_t kLimit = kMaxBundleConfigBytes;
const std::string kTrainerId = "3f2a9c1b0d4e5f60718293a4b5c6d7e8f90123456789abcdef0123456789abcd";
const std::string kContainerdDir = "containerd/io.containerd.runtime.v2.task/k8s.io/";
const std::string kCrioDir = "containers/storage/overlay-containers/";

TEST(CriBundleParse, Containerd17NamesTheFullImageAndThePod) {
    auto facts =
        parse_cri_bundle(fixture("cri/containerd-1.7-config.json"), CriRuntime::containerd, kLimit);
    ASSERT_TRUE(facts) << facts.error().what;
    EXPECT_EQ(facts->image, "nvcr.io/nvidia/pytorch:24.01-py3");
    EXPECT_EQ(facts->pod_name, "trainer-7f9c");
    EXPECT_EQ(facts->pod_namespace, "vision-train");
    EXPECT_EQ(facts->pod_uid, "0d1e2f3a-1111-2222-3333-444455556666");
    EXPECT_EQ(facts->container_name, "trainer");
    EXPECT_FALSE(facts->sandbox);
}

TEST(CriBundleParse, Containerd2sImageAsThePodNamedItReadsInFull) {
    auto facts =
        parse_cri_bundle(fixture("cri/containerd-2.x-config.json"), CriRuntime::containerd, kLimit);
    ASSERT_TRUE(facts) << facts.error().what;
    // containerd 2.x writes "python:3.11"; 1.7 and CRI-O would write the full reference.
    EXPECT_EQ(facts->image, "docker.io/library/python:3.11");
    EXPECT_EQ(facts->pod_name, "notebook-0");
    EXPECT_EQ(facts->pod_namespace, "research");
    EXPECT_EQ(facts->container_name, "notebook");
}

TEST(CriBundleParse, ASandboxIsSaidToBeOneAndNamesNoImage) {
    auto facts = parse_cri_bundle(fixture("cri/containerd-2.x-sandbox-config.json"),
                                  CriRuntime::containerd, kLimit);
    ASSERT_TRUE(facts) << facts.error().what;
    EXPECT_TRUE(facts->sandbox);
    EXPECT_EQ(facts->image, std::nullopt) << "the pause image is under another key";
    EXPECT_EQ(facts->pod_name, "notebook-0");
    EXPECT_EQ(facts->container_name, std::nullopt);
}

TEST(CriBundleParse, CrioReadsItsImageAndTheKubeletsLabels) {
    auto facts = parse_cri_bundle(fixture("cri/cri-o-1.28-config.json"), CriRuntime::cri_o, kLimit);
    ASSERT_TRUE(facts) << facts.error().what;
    EXPECT_EQ(facts->image, "ghcr.io/someone/helper:latest");
    EXPECT_EQ(facts->pod_name, "helper-6d5c");
    EXPECT_EQ(facts->pod_namespace, "batch");
    EXPECT_EQ(facts->pod_uid, "5e6f7a8b-1111-2222-3333-444455556666");
    EXPECT_EQ(facts->container_name, "helper");
}

TEST(CriBundleParse, CrioFallsBackToTheImageAsAskedWhenItHasNoName) {
    // "May be empty if the image was referenced by ID and has no names" (CRI-O).
    const std::string config = R"({"annotations":{"io.kubernetes.cri-o.ImageName":"",)"
                               R"("io.kubernetes.cri-o.Image":"quay.io/org/tool@sha256:)" +
                               std::string(64, 'a') + R"("}})";
    auto facts = parse_cri_bundle(config, CriRuntime::cri_o, kLimit);
    ASSERT_TRUE(facts);
    EXPECT_EQ(facts->image, "quay.io/org/tool@sha256:" + std::string(64, 'a'));
}

TEST(CriBundleParse, OnlyTheRuntimesOwnKeysAreRead) {
    auto crio_as_containerd =
        parse_cri_bundle(fixture("cri/cri-o-1.28-config.json"), CriRuntime::containerd, kLimit);
    ASSERT_TRUE(crio_as_containerd);
    EXPECT_EQ(*crio_as_containerd, CriBundleFacts{});
    auto containerd_as_crio =
        parse_cri_bundle(fixture("cri/containerd-1.7-config.json"), CriRuntime::cri_o, kLimit);
    ASSERT_TRUE(containerd_as_crio);
    EXPECT_EQ(*containerd_as_crio, CriBundleFacts{});
}

TEST(CriBundleParse, NamesKubernetesWouldRefuseAreDropped) {
    const std::string config = R"({"annotations":{
        "io.kubernetes.cri.image-name":"evil.example/x:1\nInjected",
        "io.kubernetes.cri.sandbox-name":"Trainer_0",
        "io.kubernetes.cri.sandbox-namespace":"vision-train-with-a-name-that-is-far-too-long-for-any-dns-label-at-all",
        "io.kubernetes.cri.sandbox-uid":"not-a-uid",
        "io.kubernetes.cri.container-name":"ok-name"}})";
    auto facts = parse_cri_bundle(config, CriRuntime::containerd, kLimit);
    ASSERT_TRUE(facts);
    EXPECT_EQ(facts->image, std::nullopt);
    EXPECT_EQ(facts->pod_name, std::nullopt);
    EXPECT_EQ(facts->pod_namespace, std::nullopt);
    EXPECT_EQ(facts->pod_uid, std::nullopt);
    EXPECT_EQ(facts->container_name, "ok-name");
}

TEST(CriBundleParse, TextThatIsNotACompleteConfigIsAnError) {
    const std::string whole = fixture("cri/containerd-1.7-config.json");
    EXPECT_FALSE(
        parse_cri_bundle(whole.substr(0, whole.size() / 2), CriRuntime::containerd, kLimit));
    EXPECT_FALSE(parse_cri_bundle("[1,2]", CriRuntime::containerd, kLimit));
    EXPECT_FALSE(parse_cri_bundle(std::string(100, '['), CriRuntime::containerd, kLimit));
    auto plain = parse_cri_bundle(R"({"ociVersion":"1.1.0"})", CriRuntime::containerd, kLimit);
    ASSERT_TRUE(plain) << "a config without annotations is a container with no pod";
    EXPECT_EQ(*plain, CriBundleFacts{});
}

// A run directory laid out as a node's, under a temporary directory: the relocated root a
// DaemonSet's host mount gives.
class RunDirectory : public ::testing::Test {
  protected:
    std::string containerd_config(const std::string& id) const {
        return dir_ / (kContainerdDir + id + "/config.json");
    }
    Result<std::optional<CriBundleFacts>> read(const std::string& id,
                                               CriRuntime runtime = CriRuntime::containerd,
                                               std::size_t limit = kLimit) const {
        return read_cri_bundle(dir_.path(), runtime, id, limit);
    }
    TempDir dir_;
};

TEST_F(RunDirectory, EachRuntimesLayoutIsReadUnderARelocatedRoot) {
    write_file(containerd_config(kTrainerId), fixture("cri/containerd-1.7-config.json"));
    const std::string crio_id(64, '9');
    write_file(dir_ / (kCrioDir + crio_id + "/userdata/config.json"),
               fixture("cri/cri-o-1.28-config.json"));
    auto trainer = read(kTrainerId);
    ASSERT_TRUE(trainer && *trainer) << (trainer ? "missing" : trainer.error().what);
    EXPECT_EQ((*trainer)->image, "nvcr.io/nvidia/pytorch:24.01-py3");
    auto helper = read(crio_id, CriRuntime::cri_o);
    ASSERT_TRUE(helper && *helper) << (helper ? "missing" : helper.error().what);
    EXPECT_EQ((*helper)->pod_namespace, "batch");
    // Each runtime looks in its own directory only.
    auto crosswise = read(crio_id, CriRuntime::containerd);
    ASSERT_TRUE(crosswise);
    EXPECT_FALSE(*crosswise);
}

TEST_F(RunDirectory, AMissingBundleOrRuntimeSaysNothing) {
    auto no_runtime = read(kTrainerId);
    ASSERT_TRUE(no_runtime) << no_runtime.error().what;
    EXPECT_FALSE(*no_runtime);
    std::filesystem::create_directories(dir_ / kContainerdDir);
    auto no_bundle = read(kTrainerId);
    ASSERT_TRUE(no_bundle) << no_bundle.error().what;
    EXPECT_FALSE(*no_bundle);
}

TEST_F(RunDirectory, AnIdThatIsNotOneIsNeverLookedUp) {
    for (const std::string& id : {std::string("../../../etc"), std::string(64, 'A'),
                                  std::string(63, 'a') + "/", std::string(12, 'a')}) {
        auto refused = read(id);
        ASSERT_FALSE(refused) << id;
        EXPECT_EQ(refused.error().category, ErrorCategory::invalid_input);
    }
}

TEST_F(RunDirectory, ATruncatedConfigIsRefused) {
    const std::string whole = fixture("cri/containerd-1.7-config.json");
    write_file(containerd_config(kTrainerId), whole.substr(0, whole.size() - 40));
    auto cut = read(kTrainerId);
    ASSERT_FALSE(cut);
    EXPECT_NE(cut.error().what.find("not a complete OCI config"), std::string::npos)
        << cut.error().what;
}

TEST_F(RunDirectory, AConfigOverTheLimitIsNotRead) {
    // Valid JSON, but larger than any runtime writes: padded in a field nobody reads.
    std::string padded = fixture("cri/containerd-1.7-config.json");
    padded.insert(padded.find('{') + 1, "\"padding\":\"" + std::string(kLimit, 'x') + "\",");
    write_file(containerd_config(kTrainerId), padded);
    auto huge = read(kTrainerId);
    ASSERT_FALSE(huge);
    EXPECT_EQ(huge.error().category, ErrorCategory::refused);
    EXPECT_NE(huge.error().what.find("larger than 4194304 bytes"), std::string::npos)
        << huge.error().what;
}

TEST_F(RunDirectory, ASymbolicLinkOutOfTheRuntimesDirectoryIsRefused) {
    // Something else readable by root, outside the runtime's directory.
    const std::string outside = dir_ / "elsewhere/config.json";
    write_file(outside, fixture("cri/containerd-1.7-config.json"));
    make_symlink(outside, containerd_config(kTrainerId));  // absolute
    auto absolute = read(kTrainerId);
    ASSERT_FALSE(absolute);
    EXPECT_EQ(absolute.error().category, ErrorCategory::refused);
    EXPECT_NE(absolute.error().what.find("symbolic link leads out"), std::string::npos)
        << absolute.error().what;

    const std::string climbing(64, 'c');
    make_symlink("../../../../elsewhere/config.json", containerd_config(climbing));
    auto relative = read(climbing);
    ASSERT_FALSE(relative);
    EXPECT_EQ(relative.error().category, ErrorCategory::refused);

    const std::string whole_dir(64, 'd');  // the bundle directory itself a link out
    make_symlink(dir_ / "elsewhere", dir_ / (kContainerdDir + whole_dir));
    auto directory = read(whole_dir);
    ASSERT_FALSE(directory);
    EXPECT_EQ(directory.error().category, ErrorCategory::refused);
}

TEST_F(RunDirectory, ALinkThatStaysInsideIsFollowed) {
    const std::string real(64, 'e');
    const std::string linked(64, 'f');
    write_file(containerd_config(real), fixture("cri/containerd-1.7-config.json"));
    make_symlink("../" + real + "/config.json", containerd_config(linked));
    auto inside = read(linked);
    ASSERT_TRUE(inside && *inside) << (inside ? "missing" : inside.error().what);
    EXPECT_EQ((*inside)->pod_name, "trainer-7f9c");
}

TEST_F(RunDirectory, AFifoIsNotWaitedOnAndAWorldWritableFileIsNotTrusted) {
    const std::string fifo_id(64, '1');
    std::filesystem::create_directories(dir_ / (kContainerdDir + fifo_id));
    ASSERT_EQ(::mkfifo(containerd_config(fifo_id).c_str(), 0600), 0);
    auto fifo = read(fifo_id);  // returns at once: opened without blocking, then refused
    ASSERT_FALSE(fifo);
    EXPECT_NE(fifo.error().what.find("not a regular file"), std::string::npos) << fifo.error().what;

    const std::string open_id(64, '2');
    write_file(containerd_config(open_id), fixture("cri/containerd-1.7-config.json"));
    ::chmod(containerd_config(open_id).c_str(), 0666);
    auto writable = read(open_id);
    ASSERT_FALSE(writable);
    EXPECT_NE(writable.error().what.find("writable by every user"), std::string::npos);
}

TEST_F(RunDirectory, TheCacheReadsOnceFollowsTheCgroupsRuntimeAndRetriesAMiss) {
    CriBundles bundles(CriBundleOptions{.rundir = dir_.path()});
    const auto t0 = std::chrono::steady_clock::time_point{} + 1000s;
    const ContainerInfo containerd{.runtime = "containerd", .id = kTrainerId};
    // Not there yet: looked at again after the retry interval, not before.
    EXPECT_FALSE(bundles.look_up(containerd, t0).facts);
    write_file(containerd_config(kTrainerId), fixture("cri/containerd-1.7-config.json"));
    EXPECT_FALSE(bundles.look_up(containerd, t0 + 1s).facts);
    auto found = bundles.look_up(containerd, t0 + 3s);
    ASSERT_TRUE(found.facts);
    EXPECT_EQ(found.facts->pod_name, "trainer-7f9c");
    // Cached: the file is not read again within the TTL.
    std::filesystem::remove(containerd_config(kTrainerId));
    EXPECT_TRUE(bundles.look_up(containerd, t0 + 100s).facts);
    EXPECT_FALSE(bundles.look_up(containerd, t0 + 400s).facts) << "expired, read again";

    // The cgroupfs driver names no runtime: containerd's layout, then CRI-O's.
    const std::string crio_id(64, '9');
    write_file(dir_ / (kCrioDir + crio_id + "/userdata/config.json"),
               fixture("cri/cri-o-1.28-config.json"));
    auto unnamed = bundles.look_up(ContainerInfo{.runtime = "kubernetes", .id = crio_id}, t0);
    ASSERT_TRUE(unnamed.facts);
    EXPECT_EQ(unnamed.facts->pod_name, "helper-6d5c");
    // A Docker container has no CRI bundle, whatever lies there under its id.
    EXPECT_FALSE(bundles.look_up(ContainerInfo{.runtime = "docker", .id = crio_id}, t0).facts);
}

TEST_F(RunDirectory, ARefusalIsSaidAndNoOtherRuntimeIsAskedForThatContainer) {
    const std::string id(64, '7');
    write_file(dir_ / "elsewhere/config.json", fixture("cri/containerd-1.7-config.json"));
    make_symlink(dir_ / "elsewhere/config.json", containerd_config(id));
    write_file(dir_ / (kCrioDir + id + "/userdata/config.json"),
               fixture("cri/cri-o-1.28-config.json"));
    CriBundles bundles(CriBundleOptions{.rundir = dir_.path()});
    auto lookup = bundles.look_up(ContainerInfo{.runtime = "kubernetes", .id = id},
                                  std::chrono::steady_clock::time_point{} + 1000s);
    EXPECT_FALSE(lookup.facts);
    ASSERT_TRUE(lookup.refusal);
    EXPECT_NE(lookup.refusal->find("symbolic link leads out"), std::string::npos)
        << *lookup.refusal;
}

TEST_F(RunDirectory, TheTestsNodeLayoutIsWhatTheReaderReads) {
    const testing::CriContainer trainer{.runtime = "containerd",
                                        .id = kTrainerId,
                                        .image = "nvcr.io/nvidia/pytorch:24.01-py3",
                                        .pod = "trainer-0",
                                        .pod_namespace = "vision",
                                        .pod_uid = "0d1e2f3a-1111-2222-3333-444455556666",
                                        .container = "trainer"};
    testing::write_cri_bundle(dir_.path(), trainer);
    testing::CriContainer helper = trainer;
    helper.runtime = "cri-o";
    helper.id = std::string(64, '4');
    helper.pod = "helper-0";
    testing::write_cri_bundle(dir_.path(), helper);
    auto a = read(trainer.id);
    auto b = read(helper.id, CriRuntime::cri_o);
    ASSERT_TRUE(a && *a && b && *b);
    EXPECT_EQ((*a)->pod_name, "trainer-0");
    EXPECT_EQ((*b)->pod_name, "helper-0");
    EXPECT_EQ((*b)->image, "nvcr.io/nvidia/pytorch:24.01-py3");
}

}  // namespace
}  // namespace gpukill

// parse_proc_cgroup on /proc/PID/cgroup text as docker, containerd, cri-o, podman and the
// kubelet lay out cgroups, in cgroup v1 and v2, seen from the host.
#include <gtest/gtest.h>

#include <string>

#include "host/proc_parse.hpp"
#include "host_test_support.hpp"

namespace gpukill {
namespace {

std::optional<ContainerInfo> parse(std::string_view name) {
    return parse_proc_cgroup(host_test::fixture("proc/cgroup/" + std::string(name) + ".txt"));
}

constexpr const char* kDocker1 = "e31474db6b076c0157108aa14dc6dc22a215bb11a746e5ee3f315781cdc85191";
constexpr const char* kDocker2 = "2dcbb3d10d6fb46fc5e2cd6782d6030a10d06dfa26c14d8dfdc4ed25a180730c";
constexpr const char* kContainerd1 =
    "a4a2dcb08f8aa6e39de416b4322642baba1901bd0c8da1f587da4bec4ac7be6a";
constexpr const char* kContainerd2 =
    "388e3f89aab9d0edbb4d5fbd749ca844a7d898188fc708fe2ebe0721cf99c7c0";
constexpr const char* kCrio = "698fdd31c5ed8adaa2e86964d0f3a674377e8dd177b38230da6b7711e847d11f";
constexpr const char* kPodman = "586e74c7774c6dc333cacc2cb12d583c18cea9018dd14cdc2a2bc36d4e5f73f2";
constexpr const char* kCgroupfsK8s =
    "90004b792c6ab88461414455e9afd6948ce4db04c12f052ac4039b11e54004bc";
constexpr const char* kKindInner =
    "6a8322c8c1de8bba7f570ded09cf0c4b906aac40e5100b7c8926fc068b5eb7de";
constexpr const char* kPod1 = "963606fe-2623-45a5-b6b1-afa75c44e6a1";
constexpr const char* kPod2 = "52d5a30a-a259-43e6-8ae9-da86708c847a";
constexpr const char* kPod3 = "819674b4-372c-417e-b748-7b71e0f3a698";
constexpr const char* kPod4 = "9781a918-864e-4c50-a4c6-d03bf69f98cf";

void expect_container(const std::optional<ContainerInfo>& info, std::string_view runtime,
                      std::string_view id, std::optional<std::string> pod_uid) {
    ASSERT_TRUE(info);
    EXPECT_EQ(info->runtime, runtime);
    EXPECT_EQ(info->id, id);
    EXPECT_EQ(info->pod_uid, pod_uid);
}

TEST(ParseProcCgroup, DockerV1Cgroupfs) {
    expect_container(parse("v1_docker"), "docker", kDocker1, std::nullopt);
}

TEST(ParseProcCgroup, DockerV2Systemd) {
    expect_container(parse("v2_docker_systemd"), "docker", kDocker2, std::nullopt);
}

TEST(ParseProcCgroup, DockerV2Cgroupfs) {
    expect_container(parse("v2_docker_cgroupfs"), "docker", kDocker1, std::nullopt);
}

TEST(ParseProcCgroup, RemovedCgroupStillNamesTheContainer) {
    expect_container(parse("v2_docker_deleted"), "docker", kDocker2, std::nullopt);
}

TEST(ParseProcCgroup, KubernetesContainerdSystemdDriver) {
    expect_container(parse("v2_k8s_containerd_systemd"), "containerd", kContainerd1, kPod1);
    expect_container(parse("v2_k8s_containerd_guaranteed"), "containerd", kContainerd2, kPod2);
}

TEST(ParseProcCgroup, KubernetesStaticPodHashUid) {
    expect_container(parse("v2_k8s_static_pod"), "containerd", kContainerd1,
                     "ca1e593945268cc32e8319f633d5dc84");
}

TEST(ParseProcCgroup, KubernetesCgroupfsDriverDoesNotNameTheRuntime) {
    expect_container(parse("v1_k8s_cgroupfs"), "kubernetes", kCgroupfsK8s, kPod3);
}

TEST(ParseProcCgroup, KubernetesDockershimSystemdDriver) {
    expect_container(parse("v1_k8s_docker_systemd"), "docker", kDocker1, kPod1);
}

TEST(ParseProcCgroup, CriO) {
    expect_container(parse("v2_crio"), "cri-o", kCrio, kPod3);
}

TEST(ParseProcCgroup, CriOConmonIsNotTheContainer) {
    // In the pod slice: the pod is known, the monitor is in no container.
    expect_container(parse("v2_crio_conmon_pod"), "kubernetes", "", kPod3);
    EXPECT_FALSE(parse("v2_crio_conmon_system"));
}

TEST(ParseProcCgroup, Podman) {
    expect_container(parse("v2_podman"), "podman", kPodman, std::nullopt);
    expect_container(parse("v2_podman_rootless"), "podman", kPodman, std::nullopt);
    EXPECT_FALSE(parse("v2_podman_conmon"));
}

TEST(ParseProcCgroup, NestedKindNodeReportsTheInnermostContainer) {
    expect_container(parse("v2_kind_nested"), "containerd", kKindInner, kPod4);
}

TEST(ParseProcCgroup, PodSliceWithoutContainer) {
    expect_container(parse("v2_k8s_pod_only"), "kubernetes", "", kPod1);
}

TEST(ParseProcCgroup, NoContainer) {
    EXPECT_FALSE(parse("v2_user_session"));
    EXPECT_FALSE(parse("v2_user_app"));
    EXPECT_FALSE(parse("v2_init"));
    EXPECT_FALSE(parse("v2_root"));
    EXPECT_FALSE(parse("v1_user_session"));
    EXPECT_FALSE(parse("v2_docker_daemon"));
    EXPECT_FALSE(parse_proc_cgroup(""));
}

TEST(ParseProcCgroup, NearMissesAreNotContainers) {
    const std::string short_id = "0::/system.slice/docker-e31474db6b07.scope\n";
    EXPECT_FALSE(parse_proc_cgroup(short_id));
    const std::string not_hex =
        "0::/system.slice/docker-"
        "z31474db6b076c0157108aa14dc6dc22a215bb11a746e5ee3f315781cdc85191.scope\n";
    EXPECT_FALSE(parse_proc_cgroup(not_hex));
    // A bare 64-hex directory outside docker/ or a pod names no runtime we know.
    const std::string bare = std::string("0::/actions_job/") + kDocker1 + "\n";
    EXPECT_FALSE(parse_proc_cgroup(bare));
    // "pod<uid>" only counts below kubepods.
    const std::string stray_pod = std::string("0::/pod") + kPod1 + "\n";
    EXPECT_FALSE(parse_proc_cgroup(stray_pod));
    // Malformed pod UID in a kubepods slice.
    EXPECT_FALSE(parse_proc_cgroup("0::/kubepods.slice/kubepods-podnothex.slice\n"));
    // Lines without the two separators are skipped.
    EXPECT_FALSE(parse_proc_cgroup("garbage\n12\n:\n"));
}

TEST(ParseProcCgroup, V1LineNamingTheContainerWinsOverPodOnlyLines) {
    const std::string text = std::string("3:cpu:/kubepods/burstable/pod") + kPod3 + "\n" +
                             "2:memory:/kubepods/burstable/pod" + kPod3 + "/" + kCgroupfsK8s +
                             "\n" + "1:name=systemd:/\n";
    expect_container(parse_proc_cgroup(text), "kubernetes", kCgroupfsK8s, kPod3);
}

}  // namespace
}  // namespace gpukill

// Kubernetes' name rules and the full form of an image reference, as the reference
// libraries (distribution/reference) complete a familiar name.
#include "model/kubernetes_names.hpp"

#include <gtest/gtest.h>

namespace gpukill {
namespace {

TEST(KubernetesNames, NamespacesAndContainerNamesAreLabels) {
    EXPECT_TRUE(is_kubernetes_label("kube-system"));
    EXPECT_TRUE(is_kubernetes_label("a"));
    EXPECT_TRUE(is_kubernetes_label(std::string(63, 'a')));
    EXPECT_FALSE(is_kubernetes_label(std::string(64, 'a')));
    EXPECT_FALSE(is_kubernetes_label(""));
    EXPECT_FALSE(is_kubernetes_label("-leading"));
    EXPECT_FALSE(is_kubernetes_label("trailing-"));
    EXPECT_FALSE(is_kubernetes_label("Upper"));
    EXPECT_FALSE(is_kubernetes_label("dotted.name"));
    EXPECT_FALSE(is_kubernetes_label("pro*"));
}

TEST(KubernetesNames, PodNamesAreSubdomains) {
    EXPECT_TRUE(is_kubernetes_subdomain("trainer-7f9c"));
    EXPECT_TRUE(is_kubernetes_subdomain("web.v2-0"));
    EXPECT_TRUE(is_kubernetes_subdomain(std::string(253, 'a')));
    EXPECT_FALSE(is_kubernetes_subdomain(std::string(254, 'a')));
    EXPECT_FALSE(is_kubernetes_subdomain("a..b"));
    EXPECT_FALSE(is_kubernetes_subdomain(".a"));
    EXPECT_FALSE(is_kubernetes_subdomain("a_b"));
    EXPECT_FALSE(is_kubernetes_subdomain(""));
}

TEST(KubernetesNames, PodUids) {
    EXPECT_TRUE(is_pod_uid("0d1e2f3a-1111-2222-3333-444455556666"));
    EXPECT_TRUE(is_pod_uid(std::string(32, 'f')));  // a static pod's hash
    EXPECT_FALSE(is_pod_uid("0d1e2f3a_1111_2222_3333_444455556666"));
    EXPECT_FALSE(is_pod_uid("not-a-uid"));
}

TEST(KubernetesNames, ImageReferencesReadInFull) {
    EXPECT_EQ(full_image_reference("python:3.11"), "docker.io/library/python:3.11");
    EXPECT_EQ(full_image_reference("python"), "docker.io/library/python:latest");
    EXPECT_EQ(full_image_reference("pytorch/pytorch"), "docker.io/pytorch/pytorch:latest");
    EXPECT_EQ(full_image_reference("docker.io/library/python:3.11"),
              "docker.io/library/python:3.11");
    EXPECT_EQ(full_image_reference("docker.io/python:3.11"), "docker.io/library/python:3.11");
    EXPECT_EQ(full_image_reference("index.docker.io/x/y:1"), "docker.io/x/y:1");
    EXPECT_EQ(full_image_reference("nvcr.io/nvidia/pytorch:24.01-py3"),
              "nvcr.io/nvidia/pytorch:24.01-py3");
    EXPECT_EQ(full_image_reference("localhost:5000/a"), "localhost:5000/a:latest");
    EXPECT_EQ(full_image_reference("localhost/a:1"), "localhost/a:1");
    EXPECT_EQ(full_image_reference("registry.example:5000/team/app"),
              "registry.example:5000/team/app:latest");
    const std::string digest = "@sha256:" + std::string(64, 'a');
    EXPECT_EQ(full_image_reference("python" + digest), "docker.io/library/python" + digest);
    EXPECT_EQ(full_image_reference("ghcr.io/o/t:1" + digest), "ghcr.io/o/t:1" + digest);
    // An image id names no repository: it stays as it is.
    EXPECT_EQ(full_image_reference("sha256:" + std::string(64, 'b')),
              "sha256:" + std::string(64, 'b'));
    EXPECT_EQ(full_image_reference(std::string(64, 'c')), std::string(64, 'c'));
}

}  // namespace
}  // namespace gpukill

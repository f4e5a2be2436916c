// The container image resolver against a replay of the Docker Engine API on a unix
// socket (integration/docker_api_replay.hpp): documented answers, chunked and plain,
// 404 for an unknown container, the cache, and no socket at all.
#include "host/container_runtime.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "../integration/docker_api_replay.hpp"

namespace gpukill {
namespace {

std::string runtime_temp_dir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpukill-rt-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp");
    return pattern;
}

const std::string kOfficialId(64, 'a');
const std::string kOtherId = std::string(63, 'b') + "c";

TEST(ContainerRuntime, ImageFromInspectPrefersConfigImage) {
    EXPECT_EQ(image_from_inspect(
                  testing::DockerApiReplay::inspect_document(kOfficialId, "python:3.11", "t")),
              "python:3.11");
    EXPECT_EQ(image_from_inspect(R"({"Image":"sha256:abc","Config":{"Image":""}})"), "sha256:abc");
    EXPECT_EQ(image_from_inspect("not json"), std::nullopt);
    EXPECT_EQ(image_from_inspect(R"({"Config":{"Image":5}})"), std::nullopt);
}

TEST(ContainerRuntime, DefaultSocketsFollowTheEnvironment) {
    EXPECT_EQ(default_container_sockets("/a.sock:/b.sock", nullptr),
              (std::vector<std::string>{"/a.sock", "/b.sock"}));
    EXPECT_TRUE(default_container_sockets("", nullptr).empty());
    const auto defaults = default_container_sockets(nullptr, "/run/user/1000");
    ASSERT_EQ(defaults.size(), 3u);
    EXPECT_EQ(defaults[0], "/var/run/docker.sock");
    EXPECT_EQ(defaults[2], "/run/user/1000/podman/podman.sock");
}

class ReplayedRuntime : public ::testing::TestWithParam<bool> {};

TEST_P(ReplayedRuntime, ResolvesKnownContainersAndCachesThem) {
    const std::string dir = runtime_temp_dir();
    testing::DockerApiReplay replay(dir + "/docker.sock", /*chunked=*/GetParam());
    replay.add_container(kOfficialId, "python:3.11", "trainer");
    auto body = unix_socket_http_get(replay.path(), "/_ping", std::chrono::milliseconds(2000));
    ASSERT_TRUE(body) << body.error().what;
    EXPECT_EQ(*body, "OK");
    auto missing = unix_socket_http_get(replay.path(), "/containers/" + kOtherId + "/json",
                                        std::chrono::milliseconds(2000));
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().category, ErrorCategory::not_found);

    ContainerImageResolver resolver(ContainerRuntimeOptions{
        .sockets = {dir + "/absent.sock", replay.path()}, .ttl = std::chrono::seconds(60)});
    const auto now = std::chrono::steady_clock::now();
    ContainerInfo container{.runtime = "docker", .id = kOfficialId};
    EXPECT_EQ(resolver.image_of(container, now), "python:3.11");
    const int asked = replay.requests();
    EXPECT_EQ(resolver.image_of(container, now), "python:3.11");
    EXPECT_EQ(replay.requests(), asked) << "a second lookup is answered from the cache";
    // After the time to live the runtime is asked again.
    EXPECT_EQ(resolver.image_of(container, now + std::chrono::seconds(61)), "python:3.11");
    EXPECT_EQ(replay.requests(), asked + 1);
    // Unknown, or not a hex id: no image, and nothing unsafe goes into a URL.
    EXPECT_EQ(resolver.image_of(ContainerInfo{.runtime = "docker", .id = kOtherId}, now),
              std::nullopt);
    EXPECT_EQ(resolver.image_of(ContainerInfo{.runtime = "docker", .id = "../../_ping"}, now),
              std::nullopt);
    std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(PlainAndChunked, ReplayedRuntime, ::testing::Bool());

// A runtime that accepts a connection and never answers (a busy dockerd): the lookup
// times out, and that is not an answer to keep for the time to live.
TEST(ContainerRuntime, ARuntimeThatDidNotAnswerIsAskedAgainSoonAndA404IsKept) {
    const std::string dir = runtime_temp_dir();
    const std::string path = dir + "/docker.sock";
    const int stalled = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path.c_str(), sizeof(address.sun_path) - 1);
    ASSERT_EQ(::bind(stalled, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    ASSERT_EQ(::listen(stalled, 4), 0);  // never accepted: the request is never answered

    ContainerImageResolver resolver(
        ContainerRuntimeOptions{.sockets = {path},
                                .ttl = std::chrono::seconds(300),
                                .timeout = std::chrono::milliseconds(100),
                                .retry_after = std::chrono::seconds(2)});
    const auto t0 = std::chrono::steady_clock::now();
    const ContainerInfo container{.runtime = "docker", .id = kOfficialId};
    EXPECT_EQ(resolver.image_of(container, t0), std::nullopt);
    ::close(stalled);
    ::unlink(path.c_str());

    testing::DockerApiReplay replay(path, /*chunked=*/false);
    replay.add_container(kOfficialId, "python:3.11", "trainer");
    EXPECT_EQ(resolver.image_of(container, t0 + std::chrono::seconds(1)), std::nullopt)
        << "within the retry interval: not asked again";
    EXPECT_EQ(replay.requests(), 0);
    EXPECT_EQ(resolver.image_of(container, t0 + std::chrono::seconds(3)), "python:3.11")
        << "asked again after the retry interval, not after the time to live";

    // The runtime's own "no such container" is an answer: kept for the time to live.
    const ContainerInfo unknown{.runtime = "docker", .id = kOtherId};
    EXPECT_EQ(resolver.image_of(unknown, t0 + std::chrono::seconds(3)), std::nullopt);
    const int asked = replay.requests();
    EXPECT_EQ(resolver.image_of(unknown, t0 + std::chrono::seconds(60)), std::nullopt);
    EXPECT_EQ(replay.requests(), asked);
    std::filesystem::remove_all(dir);
}

TEST(ContainerRuntime, NoSocketMeansNoResolution) {
    ContainerImageResolver off(ContainerRuntimeOptions{});
    EXPECT_FALSE(off.enabled());
    EXPECT_EQ(off.image_of(ContainerInfo{.runtime = "docker", .id = kOfficialId},
                           std::chrono::steady_clock::now()),
              std::nullopt);
    ContainerImageResolver absent(ContainerRuntimeOptions{.sockets = {"/nonexistent/docker.sock"}});
    EXPECT_EQ(absent.image_of(ContainerInfo{.runtime = "docker", .id = kOfficialId},
                              std::chrono::steady_clock::now()),
              std::nullopt);
}

TEST(ContainerRuntime, RefusedConnectionIsUnavailable) {
    auto body =
        unix_socket_http_get("/nonexistent/docker.sock", "/_ping", std::chrono::milliseconds(200));
    ASSERT_FALSE(body);
    EXPECT_EQ(body.error().category, ErrorCategory::unavailable);
}

}  // namespace
}  // namespace gpukill

// The local channel's socket: its file, who is at the other end, and bounded lines.
#include "sys/local_socket.hpp"

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace gpukill::sys {
namespace local_socket_test {
namespace {

namespace fs = std::filesystem;

class LocalSocket : public ::testing::Test {
  protected:
    void SetUp() override {
        char name[] = "/tmp/gpukill-local-XXXXXX";
        ASSERT_NE(::mkdtemp(name), nullptr);
        dir_ = name;
    }
    void TearDown() override { fs::remove_all(dir_); }
    std::string path() const { return dir_ + "/agent.sock"; }
    std::string dir_;
};

Deadline soon() {
    return std::chrono::steady_clock::now() + std::chrono::seconds(5);
}

TEST_F(LocalSocket, OnlyItsOwnerMayConnectAndTheKernelSaysWhoConnected) {
    auto listener = listen_local(path());
    ASSERT_TRUE(listener) << listener.error().what;
    struct stat info {};
    ASSERT_EQ(::stat(path().c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0600u);
    auto client = connect_local(path());
    ASSERT_TRUE(client) << client.error().what;
    UniqueFd served(::accept4(listener->get(), nullptr, nullptr, SOCK_CLOEXEC));
    ASSERT_TRUE(served);
    auto peer = peer_credentials(served.get());
    ASSERT_TRUE(peer) << peer.error().what;
    EXPECT_EQ(peer->pid, ::getpid());
    EXPECT_EQ(peer->uid, ::geteuid());
}

TEST_F(LocalSocket, NobodyListeningIsNotFoundAndAStaleSocketIsReplaced) {
    auto nothing = connect_local(path());
    ASSERT_FALSE(nothing);
    EXPECT_EQ(nothing.error().category, ErrorCategory::not_found);
    {
        auto first = listen_local(path());
        ASSERT_TRUE(first);
    }  // closed: the file stays
    ASSERT_TRUE(fs::exists(path()));
    EXPECT_EQ(connect_local(path()).error().category, ErrorCategory::not_found);
    auto second = listen_local(path());
    ASSERT_TRUE(second) << second.error().what;
}

TEST_F(LocalSocket, ALiveListenerIsNeverTakenOverNorAFileRemoved) {
    auto live = listen_local(path());
    ASSERT_TRUE(live);
    auto again = listen_local(path());
    ASSERT_FALSE(again);
    EXPECT_EQ(again.error().category, ErrorCategory::conflict);

    const std::string plain = dir_ + "/plain";
    std::ofstream(plain) << "not a socket\n";
    auto refused = listen_local(plain);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().category, ErrorCategory::invalid_input);
    EXPECT_TRUE(fs::exists(plain));
}

TEST(LocalSocketPeers, RootAndTheServersOwnUserAreTrustedNobodyElse) {
    EXPECT_TRUE(trusted_local_peer(0, 1000));
    EXPECT_TRUE(trusted_local_peer(1000, 1000));
    EXPECT_FALSE(trusted_local_peer(1001, 1000));
    EXPECT_FALSE(trusted_local_peer(1000, 0));
}

TEST(LineChannelTest, LinesAreSplitAndBounded) {
    int pair[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
    LineChannel reader{UniqueFd(pair[0]), 16};
    LineChannel writer{UniqueFd(pair[1]), 16};
    ASSERT_TRUE(writer.write_line("one", soon()));
    ASSERT_TRUE(writer.write_line("two", soon()));
    EXPECT_EQ(reader.read_line(soon()).value_or("?"), "one");
    EXPECT_EQ(reader.read_line(soon()).value_or("?"), "two");
    // Nothing more: the deadline ends the wait.
    auto late = reader.read_line(std::chrono::steady_clock::now());
    ASSERT_FALSE(late);
    EXPECT_EQ(late.error().category, ErrorCategory::conflict);
    ASSERT_TRUE(writer.write_line(std::string(40, 'x'), soon()));
    auto long_line = reader.read_line(soon());
    ASSERT_FALSE(long_line);
    EXPECT_EQ(long_line.error().category, ErrorCategory::invalid_input);
}

TEST(LineChannelTest, AClosedPeerEndsTheStream) {
    int pair[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
    LineChannel reader{UniqueFd(pair[0])};
    ::close(pair[1]);
    EXPECT_TRUE(reader.wait_readable(soon()));
    auto end = reader.read_line(soon());
    ASSERT_FALSE(end);
    EXPECT_EQ(end.error().category, ErrorCategory::not_found);
}

}  // namespace
}  // namespace local_socket_test
}  // namespace gpukill::sys

// gpusim run --connect and extra arguments: what the rogue-detection tests rely on. The
// connection is ESTABLISHED in the workload's /proc/PID/net/tcp before the ready line,
// held by one of its descriptors; extra arguments show in its command line only.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sim_harness.hpp"
#include "workload_guard.hpp"

namespace {

namespace fs = std::filesystem;
using gpusim_test::TempDir;

// A socket bound to 127.0.0.1 at a kernel-chosen port, listening or not.
class LoopbackSocket {
  public:
    explicit LoopbackSocket(bool listening) {
        fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
            (listening && ::listen(fd_, 4) != 0) ||
            ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
            throw std::runtime_error("cannot bind 127.0.0.1");
        }
        port_ = ntohs(address.sin_port);
    }
    ~LoopbackSocket() { ::close(fd_); }
    unsigned port() const { return port_; }
    std::string endpoint() const { return "127.0.0.1:" + std::to_string(port_); }

  private:
    int fd_ = -1;
    unsigned port_ = 0;
};

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

class ConnectTest : public ::testing::Test {
  protected:
    void SetUp() override { gpusim_test::init_root(root_); }
    std::vector<std::string> run_args(std::vector<std::string> extra) const {
        std::vector<std::string> args{"--root", root_.string(), "--gpu", "0", "--mem", "64M"};
        args.insert(args.end(), extra.begin(), extra.end());
        return args;
    }
    TempDir dir_;
    fs::path root_ = dir_ / "host";
};

TEST_F(ConnectTest, HoldsAnEstablishedConnectionAndShowsExtraArguments) {
    LoopbackSocket pool(true);
    gpusim_test::Workload workload(
        run_args({"--connect", pool.endpoint(), "--", "-o", "stratum+tcp://" + pool.endpoint()}));
    ASSERT_TRUE(workload.ready()) << workload.failure_text();
    const fs::path proc = "/proc/" + std::to_string(workload.pid());

    std::string cmdline = read_file(proc / "cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    EXPECT_NE(cmdline.find("-- -o stratum+tcp://" + pool.endpoint()), std::string::npos) << cmdline;

    // Remote 127.0.0.1:PORT, state 01 (ESTABLISHED), as the kernel prints it.
    char remote[16];
    std::snprintf(remote, sizeof remote, ":%04X 01 ", pool.port());
    const std::string tcp = read_file(proc / "net/tcp");
    EXPECT_NE(tcp.find(remote), std::string::npos) << tcp;
    bool socket_held = false;
    for (const auto& entry : fs::directory_iterator(proc / "fd")) {
        std::error_code error;
        socket_held |= fs::read_symlink(entry.path(), error).string().starts_with("socket:[");
    }
    EXPECT_TRUE(socket_held);
}

TEST_F(ConnectTest, ARefusedConnectionIsASetUpError) {
    LoopbackSocket closed(false);  // bound, not listening: connections are refused
    auto result = gpusim_test::gpusim([&] {
        std::vector<std::string> args{"run"};
        auto rest = run_args({"--connect", closed.endpoint()});
        args.insert(args.end(), rest.begin(), rest.end());
        return args;
    }());
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_NE(result.err.find("gpusim: cannot connect to " + closed.endpoint()), std::string::npos)
        << result.err;
}

TEST_F(ConnectTest, EndpointsAreNumericHostPortPairs) {
    for (const char* endpoint : {"nonsense", "pool.example:3333", "127.0.0.1", "[::1]3333"}) {
        std::vector<std::string> args{"run"};
        auto rest = run_args({"--connect", endpoint});
        args.insert(args.end(), rest.begin(), rest.end());
        auto result = gpusim_test::gpusim(args);
        EXPECT_EQ(result.exit_code, 3) << endpoint << ": " << result.err;
    }
}

}  // namespace

// /proc/PID/net/tcp and tcp6 parsing (addresses as the kernel prints them on this
// host), socket inodes from fd links, and the network signals over them: outgoing
// connections to pool ports or listed pool IPs count; listeners, accepted connections
// and other states do not.
#include "detect/network_signals.hpp"
#include "detect/proc_net_tcp.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <cstring>

#include <fmt/format.h>

#include "rogue_test_support.hpp"

namespace gpukill::detect {
namespace {

using rogue_test::find;
using rogue_test::has;

// An IPv4 address as the kernel prints it: its in-memory (network order) bytes read as a
// native 32-bit integer, %08X. On x86 "127.0.0.1" is "0100007F".
std::string kernel_hex_v4(const char* dotted) {
    in_addr address{};
    inet_pton(AF_INET, dotted, &address);
    std::uint32_t word = 0;
    std::memcpy(&word, &address, 4);
    return fmt::format("{:08X}", word);
}

std::string kernel_hex_v6(const char* text) {
    in6_addr address{};
    inet_pton(AF_INET6, text, &address);
    std::string out;
    for (int i = 0; i < 4; ++i) {
        std::uint32_t word = 0;
        std::memcpy(&word, reinterpret_cast<const unsigned char*>(&address) + 4 * i, 4);
        out += fmt::format("{:08X}", word);
    }
    return out;
}

const char* kHeader =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout "
    "inode\n";

std::string v4_line(int sl, const char* local, int lport, const char* remote, int rport,
                    const char* state, unsigned long inode) {
    return fmt::format(
        "{:4}: {}:{:04X} {}:{:04X} {} 00000000:00000000 00:00000000 00000000  1000        0 {} 1 "
        "0000000000000000 20 4 30 10 -1\n",
        sl, kernel_hex_v4(local), lport, kernel_hex_v4(remote), rport, state, inode);
}

TEST(RogueProcNetTcp, LittleEndianWordsAsTheKernelPrintsThem) {
    // Literal text from a little-endian host: the format's reference case.
    const std::string text = std::string(kHeader) +
                             "   0: 0100007F:0D05 0100007F:A1B2 01 00000000:00000000 00:00000000 "
                             "00000000     0        0 12345 1 0000000000000000 20 4 30 10 -1\n";
    auto sockets = parse_proc_net_tcp(text, false);
    ASSERT_TRUE(sockets) << sockets.error().what;
    ASSERT_EQ(sockets->size(), 1u);
    const TcpSocket& socket = sockets->front();
    if (htonl(1) != 1) {  // little-endian host
        EXPECT_EQ(to_string(socket.local), "127.0.0.1");
        EXPECT_EQ(to_string(socket.remote), "127.0.0.1");
    }
    EXPECT_EQ(socket.local_port, 3333);
    EXPECT_EQ(socket.remote_port, 0xA1B2);
    EXPECT_EQ(socket.state, kTcpEstablished);
    EXPECT_EQ(socket.inode, 12345u);
}

TEST(RogueProcNetTcp, Ipv4OnThisHost) {
    const std::string text = std::string(kHeader) +
                             v4_line(0, "0.0.0.0", 22, "0.0.0.0", 0, "0A", 100) +
                             v4_line(1, "10.1.2.3", 51000, "192.0.2.7", 3333, "02", 101);
    auto sockets = parse_proc_net_tcp(text, false);
    ASSERT_TRUE(sockets) << sockets.error().what;
    ASSERT_EQ(sockets->size(), 2u);
    EXPECT_EQ((*sockets)[0].state, kTcpListen);
    EXPECT_EQ(to_string((*sockets)[1].local), "10.1.2.3");
    EXPECT_EQ(to_string((*sockets)[1].remote), "192.0.2.7");
    EXPECT_EQ((*sockets)[1].remote_port, 3333);
    EXPECT_EQ((*sockets)[1].state, kTcpSynSent);
}

TEST(RogueProcNetTcp, Ipv6AndMappedIpv4) {
    const std::string text =
        std::string(kHeader) +
        fmt::format("   0: {}:C350 {}:115C 01 00000000:00000000 00:00000000 00000000 0 0 7 1 x\n",
                    kernel_hex_v6("2001:db8::5"), kernel_hex_v6("2001:db8::1")) +
        fmt::format("   1: {}:C351 {}:0D05 01 00000000:00000000 00:00000000 00000000 0 0 8 1 x\n",
                    kernel_hex_v6("::ffff:10.0.0.2"), kernel_hex_v6("::ffff:192.0.2.9"));
    auto sockets = parse_proc_net_tcp(text, true);
    ASSERT_TRUE(sockets) << sockets.error().what;
    ASSERT_EQ(sockets->size(), 2u);
    EXPECT_EQ(to_string((*sockets)[0].remote), "2001:db8::1");
    EXPECT_EQ((*sockets)[0].remote_port, 4444);
    EXPECT_EQ(to_string((*sockets)[1].remote), "192.0.2.9") << "a mapped address is its IPv4";
    EXPECT_FALSE((*sockets)[1].remote.v6);
}

TEST(RogueProcNetTcp, MalformedLinesAreErrorsNamingTheLine) {
    auto bad = parse_proc_net_tcp(std::string(kHeader) + "   0: nonsense\n", false);
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().what.find("line 2"), std::string::npos) << bad.error().what;
    auto empty = parse_proc_net_tcp(kHeader, false);
    ASSERT_TRUE(empty);
    EXPECT_TRUE(empty->empty());
}

TEST(RogueProcNetTcp, SocketInodesFromFdLinks) {
    EXPECT_EQ(socket_inode("socket:[12345]"), 12345u);
    EXPECT_FALSE(socket_inode("pipe:[12345]"));
    EXPECT_FALSE(socket_inode("/dev/nvidia0"));
    EXPECT_FALSE(socket_inode("socket:[]"));
}

TEST(RogueProcNetTcp, IpAddressLiterals) {
    EXPECT_EQ(parse_ip_address("192.0.2.1"), parse_ip_address("::ffff:192.0.2.1"));
    EXPECT_TRUE(parse_ip_address("2001:db8::1"));
    EXPECT_FALSE(parse_ip_address("pool.example"));
}

TcpSocket connection(const char* remote, std::uint16_t remote_port, unsigned state,
                     std::uint16_t local_port = 50000) {
    TcpSocket socket;
    socket.local = *parse_ip_address("10.0.0.2");
    socket.local_port = local_port;
    socket.remote = *parse_ip_address(remote);
    socket.remote_port = remote_port;
    socket.state = state;
    return socket;
}

TEST(RogueNetwork, OutgoingConnectionToAPoolPort) {
    NetworkFacts facts;
    facts.sockets = {connection("192.0.2.7", 3333, kTcpEstablished),
                     connection("192.0.2.8", 443, kTcpEstablished)};
    auto evidence = judge_network(facts, default_rogue_config());
    const Evidence* port = find(evidence, Signal::pool_port_connection);
    ASSERT_NE(port, nullptr);
    EXPECT_EQ(port->weight, 25);
    EXPECT_NE(port->detail.find("connected to 192.0.2.7:3333"), std::string::npos) << port->detail;
    EXPECT_EQ(port->detail.find("443"), std::string::npos);

    facts.sockets = {connection("2001:db8::1", 4444, kTcpSynSent)};
    auto v6 = judge_network(facts, default_rogue_config());
    ASSERT_TRUE(has(v6, Signal::pool_port_connection));
    EXPECT_NE(
        find(v6, Signal::pool_port_connection)->detail.find("connecting to [2001:db8::1]:4444"),
        std::string::npos);
}

TEST(RogueNetwork, ListenersAcceptedConnectionsAndOtherStatesDoNotCount) {
    NetworkFacts facts;
    // Jupyter on 8888 with a browser connected: its socket's local port is the listener's.
    facts.sockets = {connection("0.0.0.0", 0, kTcpListen, 8888),
                     connection("192.0.2.9", 45700, kTcpEstablished, 8888),
                     connection("192.0.2.7", 3333, 0x06 /* TIME_WAIT */)};
    facts.listening_ports = {8888};
    EXPECT_TRUE(judge_network(facts, default_rogue_config()).empty());
}

TEST(RogueNetwork, ListedPoolIpAddressesButNeverNames) {
    RogueConfig config = default_rogue_config();
    config.pool_hosts = {"pool.example", "192.0.2.50"};
    NetworkFacts facts;
    facts.sockets = {connection("192.0.2.50", 443, kTcpEstablished)};
    auto evidence = judge_network(facts, config);
    const Evidence* host = find(evidence, Signal::pool_host_connection);
    ASSERT_NE(host, nullptr);
    EXPECT_EQ(host->weight, 60);
    EXPECT_FALSE(has(evidence, Signal::pool_port_connection));
}

TEST(RogueNetwork, ListeningPortsOfATable) {
    EXPECT_EQ(listening_ports({connection("0.0.0.0", 0, kTcpListen, 22),
                               connection("192.0.2.7", 3333, kTcpEstablished)}),
              (std::set<std::uint16_t>{22}));
}

TEST(RogueNetwork, APoolPortFromABusyGpuAddsUpToAFinding) {
    const RogueConfig config = default_rogue_config();
    NetworkFacts facts;
    facts.sockets = {connection("127.0.0.1", 3333, kTcpEstablished)};
    auto busy = judge_busy_pool_connection(facts, 12.5, config);
    ASSERT_TRUE(busy);
    EXPECT_EQ(busy->signal, Signal::busy_pool_connection);
    EXPECT_EQ(busy->detail,
              "connected to 127.0.0.1:3333 (a pool port) while keeping a GPU at >= 90% for 12.5 "
              "minutes");
    std::vector<Evidence> both = judge_network(facts, config);
    both.push_back(*busy);
    EXPECT_EQ(total_score(both), 45);
    EXPECT_GE(total_score(both), config.report_threshold);

    // Either alone is not enough: not busy for long, or busy without a pool connection.
    EXPECT_FALSE(judge_busy_pool_connection(facts, std::nullopt, config));
    facts.sockets = {connection("127.0.0.1", 443, kTcpEstablished)};
    EXPECT_FALSE(judge_busy_pool_connection(facts, 60.0, config));
    // A browser connected to Jupyter's 8888 is the server's socket, not the process's.
    facts.sockets = {connection("127.0.0.1", 51000, kTcpEstablished, 8888)};
    facts.listening_ports = {8888};
    EXPECT_FALSE(judge_busy_pool_connection(facts, 60.0, config));
}

}  // namespace
}  // namespace gpukill::detect

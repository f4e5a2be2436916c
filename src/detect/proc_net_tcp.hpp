// /proc/PID/net/tcp and tcp6: the TCP sockets of one network namespace. Pure parser.
//
//   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
//    0: 0100007F:0D05 0100007F:A1B2 01 00000000:00000000 00:00000000 00000000     0        0 12345
//    ...
//
// Addresses are the kernel's in-memory bytes printed as 32-bit words in hex (%08X), so
// on a little-endian host "0100007F" is 127.0.0.1; each word is decoded as a native
// integer and copied back, which is right on either byte order. Ports are plain hex.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.hpp"

namespace gpukill::detect {

inline constexpr unsigned kTcpEstablished = 0x01;
inline constexpr unsigned kTcpSynSent = 0x02;
inline constexpr unsigned kTcpListen = 0x0A;

struct IpAddress {
    bool v6 = false;
    std::array<unsigned char, 16> bytes{};  // network order; the first 4 for IPv4
    friend bool operator==(const IpAddress&, const IpAddress&) = default;
};

// "127.0.0.1", "2001:db8::1"; an IPv4-mapped IPv6 address ("::ffff:1.2.3.4") is
// written as its IPv4 address, as it is the same peer.
std::string to_string(const IpAddress& address);
// Parses a literal address (no names); IPv4-mapped IPv6 becomes IPv4.
std::optional<IpAddress> parse_ip_address(std::string_view text);

struct TcpSocket {
    IpAddress local;
    std::uint16_t local_port = 0;
    IpAddress remote;
    std::uint16_t remote_port = 0;
    unsigned state = 0;  // 01 ESTABLISHED, 02 SYN_SENT, 0A LISTEN...
    std::uint64_t inode = 0;
};

// The header line is skipped; blank lines are ignored. A line that does not have the
// kernel's shape is an error naming the line (1-based), not silently skipped.
Result<std::vector<TcpSocket>> parse_proc_net_tcp(std::string_view text, bool ipv6);

// "socket:[12345]" (a /proc/PID/fd link) -> 12345.
std::optional<std::uint64_t> socket_inode(std::string_view link);

}  // namespace gpukill::detect

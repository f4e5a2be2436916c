#include "detect/proc_net_tcp.hpp"

#include <arpa/inet.h>

#include <fmt/format.h>

#include <charconv>
#include <cstring>

namespace gpukill::detect {
namespace {

template <class Int>
std::optional<Int> parse_hex(std::string_view text) {
    Int value = 0;
    if (text.empty()) return std::nullopt;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

std::optional<std::uint64_t> parse_decimal(std::string_view text) {
    std::uint64_t value = 0;
    if (text.empty()) return std::nullopt;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

// "0100007F:1F90" -> address and port.
bool parse_address_port(std::string_view text, bool ipv6, IpAddress& address, std::uint16_t& port) {
    const std::size_t hex_digits = ipv6 ? 32 : 8;
    if (text.size() != hex_digits + 5 || text[hex_digits] != ':') return false;
    address = IpAddress{};
    address.v6 = ipv6;
    for (std::size_t word = 0; word < hex_digits / 8; ++word) {
        auto value = parse_hex<std::uint32_t>(text.substr(word * 8, 8));
        if (!value) return false;
        std::memcpy(address.bytes.data() + word * 4, &*value, 4);
    }
    auto parsed_port = parse_hex<std::uint16_t>(text.substr(hex_digits + 1));
    if (!parsed_port) return false;
    port = *parsed_port;
    return true;
}

constexpr std::array<unsigned char, 12> kV4MappedPrefix = {0, 0, 0, 0, 0,    0,
                                                           0, 0, 0, 0, 0xff, 0xff};

IpAddress unmapped(IpAddress address) {
    if (address.v6 && std::memcmp(address.bytes.data(), kV4MappedPrefix.data(), 12) == 0) {
        IpAddress v4;
        std::memcpy(v4.bytes.data(), address.bytes.data() + 12, 4);
        return v4;
    }
    return address;
}

std::vector<std::string_view> fields_of(std::string_view line) {
    std::vector<std::string_view> fields;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        const std::size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
        if (i > start) fields.push_back(line.substr(start, i - start));
    }
    return fields;
}

}  // namespace

std::string to_string(const IpAddress& address) {
    const IpAddress plain = unmapped(address);
    char text[INET6_ADDRSTRLEN] = {};
    if (::inet_ntop(plain.v6 ? AF_INET6 : AF_INET, plain.bytes.data(), text, sizeof text) ==
        nullptr) {
        return "?";
    }
    return text;
}

std::optional<IpAddress> parse_ip_address(std::string_view text) {
    const std::string copy(text);
    IpAddress address;
    if (::inet_pton(AF_INET, copy.c_str(), address.bytes.data()) == 1) return address;
    address.v6 = true;
    if (::inet_pton(AF_INET6, copy.c_str(), address.bytes.data()) == 1) return unmapped(address);
    return std::nullopt;
}

Result<std::vector<TcpSocket>> parse_proc_net_tcp(std::string_view text, bool ipv6) {
    std::vector<TcpSocket> sockets;
    std::size_t line_number = 0;
    bool header_seen = false;
    while (!text.empty()) {
        const auto newline = text.find('\n');
        const std::string_view line = text.substr(0, newline);
        text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
        ++line_number;
        const std::vector<std::string_view> fields = fields_of(line);
        if (fields.empty()) continue;
        if (!header_seen) {
            header_seen = true;
            if (fields.front() == "sl") continue;
        }
        // sl local rem st tx:rx tr:when retrnsmt uid timeout inode ...
        TcpSocket socket;
        std::optional<std::uint64_t> inode;
        std::optional<unsigned> state;
        const bool ok = fields.size() >= 10 && fields[0].ends_with(':') &&
                        parse_address_port(fields[1], ipv6, socket.local, socket.local_port) &&
                        parse_address_port(fields[2], ipv6, socket.remote, socket.remote_port) &&
                        fields[3].size() == 2 &&
                        (state = parse_hex<unsigned>(fields[3])).has_value() &&
                        (inode = parse_decimal(fields[9])).has_value();
        if (!ok) {
            return fail(fmt::format("line {} is not a /proc/net/tcp{} entry", line_number,
                                    ipv6 ? "6" : ""));
        }
        socket.state = *state;
        socket.local = unmapped(socket.local);
        socket.remote = unmapped(socket.remote);
        socket.inode = *inode;
        sockets.push_back(socket);
    }
    return sockets;
}

std::optional<std::uint64_t> socket_inode(std::string_view link) {
    constexpr std::string_view prefix = "socket:[";
    if (!link.starts_with(prefix) || !link.ends_with(']')) return std::nullopt;
    return parse_decimal(link.substr(prefix.size(), link.size() - prefix.size() - 1));
}

}  // namespace gpukill::detect

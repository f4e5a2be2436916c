// Where a command-line value points: "stratum+tcp://user@pool.example:3333/x",
// "pool.example:4444", "[2001:db8::1]:3333". Pure, linear, no name resolution.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpukill::detect {

struct Endpoint {
    std::string scheme;  // "" when none, else as written ("stratum+tcp")
    std::string host;    // without brackets
    std::optional<std::uint16_t> port;
};

// Empty optional when the text has no plausible host (empty, or characters no host
// name or address has).
std::optional<Endpoint> parse_endpoint(std::string_view text);

// The scheme of the first "SCHEME://" in `token` (scanning back over scheme characters
// from "://", so "--url=stratum+tcp://x" gives "stratum+tcp"), with the URL from the
// scheme on; empty optional when there is none.
struct UrlInToken {
    std::string scheme;
    std::string_view url;
};
std::optional<UrlInToken> find_url(std::string_view token);

// Whether `host` is a listed pool host: the same name or address (case-insensitive),
// or a name under a listed domain ("xmr.2miners.com" under "2miners.com"). Never a
// substring: "not2miners.com" is not under "2miners.com".
std::optional<std::string> listed_pool_host(std::string_view host,
                                            const std::vector<std::string>& pool_hosts);

}  // namespace gpukill::detect

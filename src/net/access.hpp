// Who may talk to gpukill's network listeners (the agent's HTTP API, the MCP server over
// HTTP) and from where. Pure functions and one file reader; no sockets here.
//
// Tokens: a file of lines `NAME SCOPES SECRET` (SCOPES: `read`, `act`, or `read,act`; act
// implies read), `#` comments and blank lines ignored. The file must belong to the user
// reading it and be readable by nobody else (mode & 077 == 0), like an ssh private key:
// a token others can read is not a secret. Secrets are at least 32 characters of
// printable ASCII without spaces; names are unique. A presented secret is compared with
// every entry in constant time, so timing does not reveal a prefix.
//
// DNS rebinding: a browser page on evil.example can resolve its name to 127.0.0.1 and
// send requests whose Host says evil.example. A listener on loopback therefore accepts
// only loopback Host names (localhost, 127.0.0.1, [::1], with any port) plus the names
// its operator configured, and refuses a request whose Origin is present and not a
// loopback or configured origin. No wildcard CORS anywhere.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.hpp"

namespace gpukill::net {

struct TokenEntry {
    std::string name;
    bool can_read = false;
    bool can_act = false;
    std::string secret;
};

class TokenSet {
  public:
    // Errors: unavailable (cannot read), permission (group- or world-readable, or owned
    // by another user), invalid_input (a malformed line: "FILE:LINE: why").
    static Result<TokenSet> load(const std::string& path);
    // `source` names the text in errors ("tokens:3: ...").
    static Result<TokenSet> parse(std::string_view text, std::string_view source);

    // The entry whose secret is `presented`, comparing against every entry in constant
    // time per entry; nullptr when none matches.
    const TokenEntry* match(std::string_view presented) const;
    std::size_t size() const { return entries_.size(); }

  private:
    std::vector<TokenEntry> entries_;
};

// Equal contents, in time that depends only on the lengths (OpenSSL's CRYPTO_memcmp).
bool constant_time_equal(std::string_view a, std::string_view b);

// The secret of an `Authorization: Bearer SECRET` header value; empty when the header is
// absent, of another scheme, or malformed.
std::optional<std::string_view> bearer_secret(std::string_view authorization);

// A file only its owner can read (the token file, a TLS key): refused when it is group-
// or world-readable or owned by another user than the effective one. Bounded (1 MiB).
// The last name may be a symbolic link that stays inside its own directory (a Kubernetes
// Secret: `tokens -> ..data/tokens`); the file it reaches is the one whose owner and
// mode are checked. A link out of the directory (absolute, or through "..") is refused
// (permission).
Result<std::string> read_private_file(const std::string& path);

// 127.0.0.0/8, ::1, "localhost".
bool is_loopback_address(std::string_view address);

// A Host header value ("localhost:9400", "[::1]:80", "127.0.0.1") names loopback or one
// of `allowed` (host names compared case-insensitively, port ignored).
bool host_header_allowed(std::string_view host, const std::vector<std::string>& allowed);

// An Origin header value: absent (non-browser clients) is allowed; "null" and foreign
// origins are not; http(s)://loopback[:port] and the `allowed` host names are.
bool origin_allowed(std::optional<std::string_view> origin,
                    const std::vector<std::string>& allowed);

}  // namespace gpukill::net

#include "detect/endpoints.hpp"

#include <algorithm>
#include <charconv>

#include "detect/names.hpp"

namespace gpukill::detect {
namespace {

bool scheme_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' ||
           c == '-' || c == '.';
}

bool host_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '.' || c == '_' || c == ':';
}

std::optional<std::uint16_t> parse_port(std::string_view text) {
    if (text.empty() || text.size() > 5) return std::nullopt;
    unsigned value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value == 0 || value > 65535) {
        return std::nullopt;
    }
    return static_cast<std::uint16_t>(value);
}

bool ends_with_ignoring_case(std::string_view text, std::string_view suffix) {
    if (suffix.size() > text.size()) return false;
    return equal_ignoring_case(text.substr(text.size() - suffix.size()), suffix);
}

}  // namespace

std::optional<UrlInToken> find_url(std::string_view token) {
    const auto marker = token.find("://");
    if (marker == std::string_view::npos || marker == 0) return std::nullopt;
    std::size_t start = marker;
    while (start > 0 && scheme_char(token[start - 1])) --start;
    if (start == marker) return std::nullopt;
    return UrlInToken{std::string(token.substr(start, marker - start)), token.substr(start)};
}

std::optional<Endpoint> parse_endpoint(std::string_view text) {
    Endpoint endpoint;
    std::string_view rest = text;
    if (auto url = find_url(text); url && url->url.data() == text.data()) {
        endpoint.scheme = url->scheme;
        rest = text.substr(url->scheme.size() + 3);
    }
    rest = rest.substr(0, rest.find_first_of("/?#"));
    if (const auto at = rest.rfind('@'); at != std::string_view::npos) rest.remove_prefix(at + 1);
    std::string_view host = rest;
    std::string_view port;
    if (!rest.empty() && rest.front() == '[') {
        const auto close = rest.find(']');
        if (close == std::string_view::npos) return std::nullopt;
        host = rest.substr(1, close - 1);
        const std::string_view after = rest.substr(close + 1);
        if (!after.empty()) {
            if (after.front() != ':') return std::nullopt;
            port = after.substr(1);
        }
    } else if (std::count(rest.begin(), rest.end(), ':') == 1) {
        const auto colon = rest.find(':');
        host = rest.substr(0, colon);
        port = rest.substr(colon + 1);
    }
    if (host.empty() || !std::all_of(host.begin(), host.end(), host_char)) return std::nullopt;
    endpoint.host = std::string(host);
    if (!port.empty()) {
        endpoint.port = parse_port(port);
        if (!endpoint.port) return std::nullopt;
    }
    return endpoint;
}

std::optional<std::string> listed_pool_host(std::string_view host,
                                            const std::vector<std::string>& pool_hosts) {
    if (host.empty()) return std::nullopt;
    if (host.back() == '.') host.remove_suffix(1);  // "pool.example." is fully qualified
    for (const std::string& listed : pool_hosts) {
        if (listed.empty()) continue;
        if (host.size() == listed.size() && ends_with_ignoring_case(host, listed)) return listed;
        if (host.size() > listed.size() && ends_with_ignoring_case(host, listed) &&
            host[host.size() - listed.size() - 1] == '.') {
            return listed;
        }
    }
    return std::nullopt;
}

}  // namespace gpukill::detect

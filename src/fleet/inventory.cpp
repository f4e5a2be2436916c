#include "fleet/inventory.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <set>

#include "fleet/node_set.hpp"
#include "model/bounded_json.hpp"
#include "model/human_format.hpp"
#include "model/quoted_text.hpp"

namespace gpukill::fleet {
namespace {

std::size_t line_of_offset(std::string_view text, std::size_t offset) {
    offset = std::min(offset, text.size());
    return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + offset, '\n'));
}

// The line a JSON value starts on: the first occurrence of its text after `from`.
std::size_t line_of(std::string_view text, const std::string& needle, std::size_t& from) {
    const std::size_t at = text.find(needle, from);
    if (at == std::string_view::npos) return line_of_offset(text, from);
    from = at + needle.size();
    return line_of_offset(text, at);
}

std::unexpected<Error> too_many_hosts(const std::string& where) {
    return fail(ErrorCategory::invalid_input,
                fmt::format("{}: more than {} hosts in all (the most one fleet command reaches)",
                            where, kMaxFleetHosts));
}

// Bytes a host name never holds: spaces, controls (escape sequences), non-ASCII.
bool printable_host(std::string_view host) {
    return std::all_of(host.begin(), host.end(), [](char c) {
        const auto byte = static_cast<unsigned char>(c);
        return byte > 0x20 && byte < 0x7f;
    });
}

Result<std::vector<std::string>> parse_file_sd(std::string_view text, const std::string& name) {
    auto parsed = parse_json_bounded(text, JsonBounds{.max_bytes = text.size()});
    if (!parsed) {
        return fail(ErrorCategory::invalid_input,
                    fmt::format("{}:{}: {}", name, line_of_offset(text, parsed.error().byte),
                                parsed.error().what));
    }
    const nlohmann::json& document = *parsed;
    if (!document.is_array()) {
        return fail(ErrorCategory::invalid_input,
                    fmt::format("{}:1: a file_sd document is a JSON array of target groups", name));
    }
    std::vector<std::string> hosts;
    std::set<std::string> seen;
    std::size_t cursor = 0;
    for (const nlohmann::json& group : document) {
        const std::size_t group_line = line_of(text, "{", cursor);
        if (!group.is_object() || !group.contains("targets") || !group["targets"].is_array()) {
            return fail(
                ErrorCategory::invalid_input,
                fmt::format("{}:{}: a target group needs \"targets\": [...]", name, group_line));
        }
        for (const nlohmann::json& target : group["targets"]) {
            const std::string shown = target.is_string() ? target.get<std::string>() : "";
            const std::size_t line = line_of(text, target.dump(), cursor);
            if (!target.is_string()) {
                return fail(ErrorCategory::invalid_input,
                            fmt::format("{}:{}: a target is a string \"host:port\"", name, line));
            }
            auto address = parse_host_address(shown);
            if (!address) {
                return fail(ErrorCategory::invalid_input,
                            fmt::format("{}:{}: {}", name, line, address.error().what));
            }
            // The scrape port is the agent's (metrics and API on one port): kept for
            // the agent transport; the SSH transport uses the host alone.
            if (seen.insert(shown).second) hosts.push_back(shown);
            if (hosts.size() > kMaxFleetHosts)
                return too_many_hosts(fmt::format("{}:{}", name, line));
        }
    }
    return hosts;
}

}  // namespace

Result<HostAddress> parse_host_address(std::string_view target) {
    if (!printable_host(target)) {
        return fail(ErrorCategory::invalid_input,
                    fmt::format("{}: a host name holds no spaces, control characters or "
                                "non-ASCII bytes",
                                quote_escaped(target)));
    }
    HostAddress address;
    std::string_view port_text;
    if (target.starts_with('[')) {
        const std::size_t close = target.find(']');
        if (close == std::string_view::npos) {
            return fail(ErrorCategory::invalid_input,
                        fmt::format("'{}': unclosed '[' in an address", target));
        }
        address.host = std::string(target.substr(1, close - 1));
        std::string_view rest = target.substr(close + 1);
        if (!rest.empty()) {
            if (rest[0] != ':') {
                return fail(ErrorCategory::invalid_input,
                            fmt::format("'{}': expected ':PORT' after ']'", target));
            }
            port_text = rest.substr(1);
        }
    } else {
        const std::size_t colon = target.rfind(':');
        if (colon != std::string_view::npos && target.find(':') == colon) {
            address.host = std::string(target.substr(0, colon));
            port_text = target.substr(colon + 1);
        } else {
            address.host = std::string(target);  // a name, or a bare IPv6 address
        }
    }
    if (address.host.empty()) {
        return fail(ErrorCategory::invalid_input, fmt::format("'{}': no host", target));
    }
    if (!port_text.empty() || (target.ends_with(':'))) {
        unsigned port = 0;
        auto [end, ec] =
            std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
        if (ec != std::errc{} || end != port_text.data() + port_text.size() || port == 0 ||
            port > 65535) {
            return fail(ErrorCategory::invalid_input,
                        fmt::format("'{}': the port must be 1 to 65535", target));
        }
        address.port = port;
    }
    return address;
}

Result<std::vector<std::string>> parse_hosts_text(std::string_view text, const std::string& name) {
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && text[first] == '[') {
        // A file_sd document: a JSON array. A node-set line never starts with '['.
        return parse_file_sd(text, name);
    }
    std::vector<std::string> hosts;
    std::set<std::string> seen;
    std::size_t line_number = 0;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(start, end - start);
        ++line_number;
        start = end + 1;
        if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) {
            line = line.substr(0, hash);
        }
        const std::size_t b = line.find_first_not_of(" \t\r");
        if (b == std::string_view::npos) {
            if (end == text.size()) break;
            continue;
        }
        line = line.substr(b, line.find_last_not_of(" \t\r") - b + 1);
        auto names = expand_node_set(line);
        if (!names) {
            return fail(ErrorCategory::invalid_input,
                        fmt::format("{}:{}: {}", name, line_number, names.error().what));
        }
        for (std::string& host : *names) {
            if (seen.insert(host).second) hosts.push_back(std::move(host));
        }
        if (hosts.size() > kMaxFleetHosts) {
            return too_many_hosts(fmt::format("{}:{}", name, line_number));
        }
        if (end == text.size()) break;
    }
    return hosts;
}

Result<std::vector<std::string>> read_hosts_file(const std::string& path) {
    constexpr std::size_t kMaxHostsFileBytes = 16u << 20;
    std::ifstream in(path, std::ios::binary);
    if (!in) return fail(fmt::format("cannot read hosts file {}", printable(path)), errno);
    // Read one chunk past the limit at most: enough to know it is over.
    std::string text;
    char chunk[65536];
    while (text.size() <= kMaxHostsFileBytes && in.read(chunk, sizeof chunk).gcount() > 0) {
        text.append(chunk, static_cast<std::size_t>(in.gcount()));
    }
    if (text.size() > kMaxHostsFileBytes) {
        return fail(ErrorCategory::invalid_input,
                    fmt::format("{}: larger than 16 MiB; not a hosts file", path));
    }
    return parse_hosts_text(text, path);
}

bool names_any_host(const TargetSpec& spec) {
    return !spec.remote.empty() || !spec.node_sets.empty() || !spec.files.empty();
}

Result<std::vector<std::string>> resolve_targets(const TargetSpec& spec) {
    std::vector<std::string> hosts;
    std::set<std::string> seen;
    const auto add = [&](std::vector<std::string> names) {
        for (std::string& host : names) {
            if (seen.insert(host).second) hosts.push_back(std::move(host));
        }
        return hosts.size() <= kMaxFleetHosts;
    };
    for (const std::string& remote : spec.remote) {
        auto address = parse_host_address(remote);
        if (!address) return fail(ErrorCategory::invalid_input, "--remote " + address.error().what);
        if (!add({remote})) return too_many_hosts("--remote");
    }
    for (const std::string& set : spec.node_sets) {
        auto names = expand_node_set(set);
        if (!names) return fail(ErrorCategory::invalid_input, "--hosts: " + names.error().what);
        if (!add(std::move(*names))) return too_many_hosts("--hosts");
    }
    for (const std::string& file : spec.files) {
        auto names = read_hosts_file(file);
        if (!names) return std::unexpected(names.error());
        if (!add(std::move(*names))) return too_many_hosts(file);
    }
    std::vector<std::string> excluded;
    for (const std::string& set : spec.exclusions) {
        auto names = expand_node_set(set);
        if (!names) return fail(ErrorCategory::invalid_input, "--exclude: " + names.error().what);
        excluded.insert(excluded.end(), names->begin(), names->end());
        if (excluded.size() > kMaxFleetHosts) return too_many_hosts("--exclude");
    }
    hosts = exclude_hosts(hosts, excluded);
    if (hosts.empty()) {
        return fail(ErrorCategory::invalid_input, "no host left to run on (check --exclude)");
    }
    return hosts;
}

}  // namespace gpukill::fleet

// Which hosts a fleet command reaches: --remote HOST, --hosts NODESET, --hosts-file
// FILE, less --exclude NODESET. A hosts file is either one node set per line (`#`
// comments, blank lines) or a Prometheus file_sd JSON document
// (`[{"targets": ["node01:9100", ...], "labels": {...}}]`), so the inventory that
// drives scraping drives control too. Parsing is pure (text in); errors name
// FILE:LINE.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.hpp"

namespace gpukill::fleet {

// The most hosts one fleet command reaches, all of --remote, --hosts and --hosts-file
// together: more is refused (invalid_input, exit 3) as soon as it is counted, before the
// rest is expanded, so a few short lines cannot make millions of names.
inline constexpr std::size_t kMaxFleetHosts = 100000;

// A target as the inventory gave it: "node01", "node01:9100", "[fd00::1]:9100".
struct HostAddress {
    std::string host;              // node01, fd00::1
    std::optional<unsigned> port;  // from `host:port` (file_sd's scrape port)
};

// "node01:9100" -> {node01, 9100}; "[::1]:22" -> {::1, 22}; "node01" -> {node01}.
// A host holding a space, a control character (an escape sequence) or a byte that is
// not printable ASCII is refused; errors show the target with such bytes escaped.
Result<HostAddress> parse_host_address(std::string_view target);

// The hosts a hosts file names, in order, each once. `name` is what errors call it.
Result<std::vector<std::string>> parse_hosts_text(std::string_view text, const std::string& name);

// The same, read from `path` (at most 16 MiB).
Result<std::vector<std::string>> read_hosts_file(const std::string& path);

struct TargetSpec {
    std::vector<std::string> remote;      // --remote (repeatable)
    std::vector<std::string> node_sets;   // --hosts (repeatable)
    std::vector<std::string> files;       // --hosts-file (repeatable)
    std::vector<std::string> exclusions;  // --exclude (node sets)
};

bool names_any_host(const TargetSpec& spec);

// Every host the spec names, in the order given, each once, less the exclusions. An
// empty result is an error (invalid_input): a fleet command over nothing is a mistake.
Result<std::vector<std::string>> resolve_targets(const TargetSpec& spec);

}  // namespace gpukill::fleet

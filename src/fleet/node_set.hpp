// Node sets as pdsh and ClusterShell operators write them: `node[01-32]`,
// `gpu[1-4,7]`, `rack[1-2]-n[1-3]` (every combination), `a,b,c`, steps
// (`n[1-9/2]`), and exclusion inside the text (`node[1-8]!node[3-4]`, ClusterShell's
// `!`) or given apart (pdsh's `-x`). Zero padding is kept: `n[08-10]` is n08 n09 n10.
// Pure: text in, host names out; and the reverse (fold), which `--gather` uses to
// name the hosts that printed the same thing as one range (`node[01-03,07]`).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/result.hpp"

namespace gpukill::fleet {

// At most this many names from one expression: a typo like `n[1-10000000]` is an error,
// not an hour of connections.
inline constexpr std::size_t kMaxNodeSetSize = 100000;

// The names `text` denotes, in order, each once. Errors (invalid_input) are one line
// that points at the column: "node[1-: unclosed '[' at column 5".
Result<std::vector<std::string>> expand_node_set(std::string_view text);

// `hosts` without any of `excluded` (order kept).
std::vector<std::string> exclude_hosts(const std::vector<std::string>& hosts,
                                       const std::vector<std::string>& excluded);

// The shortest node-set text for `hosts` over their last run of digits:
// {node01, node02, node03, node07, login} -> "login,node[01-03,07]". Sorted by prefix
// then number; names that differ in padding stay apart (n1 and n01).
std::string fold_node_set(const std::vector<std::string>& hosts);

}  // namespace gpukill::fleet

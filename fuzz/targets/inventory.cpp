// A fleet's hosts file: node sets a line (pdsh/ClusterShell syntax) or a Prometheus
// file_sd JSON document (fleet::parse_hosts_text), bounded in the hosts it may name in
// all, and each host name refused when it holds a control byte.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fleet/inventory.hpp"
#include "fleet/node_set.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto hosts = gpukill::fleet::parse_hosts_text(text, "fuzz");
    if (hosts && hosts->size() > gpukill::fleet::kMaxFleetHosts) __builtin_trap();
    if (hosts) (void)gpukill::fleet::fold_node_set(*hosts);
    return 0;
}

// gpusim leak --root DIR --gpu N --mem SIZE: memory the driver holds with no process behind it.

#include <fmt/core.h>

#include "cli/commands.hpp"
#include "cli/ledger.hpp"
#include "state/size.hpp"

namespace gpusim {

int cmd_leak(const LeakOptions& options) {
    auto bytes = parse_size(options.memory);
    if (!bytes) return report(bytes.error());
    const Root root = root_at(options.root);
    auto config = load_config(root);
    if (!config) return report(config.error());
    auto leak = register_leak(root, *config, options.gpu, *bytes);
    if (!leak) return report(leak.error());
    fmt::print("{{\"leak_id\":{},\"gpu\":{},\"memory_bytes\":{}}}\n", leak->id, leak->gpu,
               leak->bytes);
    return kExitOk;
}

}  // namespace gpusim

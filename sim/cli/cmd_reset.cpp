// gpusim reset --root DIR --gpu N [--force]: what a GPU reset does to memory accounting.

#include <fmt/core.h>

#include "cli/commands.hpp"
#include "cli/ledger.hpp"

namespace gpusim {

int cmd_reset(const ResetOptions& options) {
    const Root root = root_at(options.root);
    auto config = load_config(root);
    if (!config) return report(config.error());
    auto outcome = reset_gpu(root, *config, options.gpu, options.force);
    if (!outcome) return report(outcome.error());
    fmt::print(
        "{{\"gpu\":{},\"freed_bytes\":{},\"allocations_dropped\":{},\"leaks_dropped\":{}}}\n",
        options.gpu, outcome->freed_bytes, outcome->allocations_dropped, outcome->leaks_dropped);
    return kExitOk;
}

}  // namespace gpusim

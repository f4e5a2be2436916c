// gpusim init --root DIR [--scenario FILE] [--force]

#include "cli/commands.hpp"
#include "cli/host_layout.hpp"
#include "cli/scenario.hpp"
#include "state/root.hpp"

namespace gpusim {

int cmd_init(const InitOptions& options) {
    // The whole scenario is validated before anything is touched.
    auto config = options.scenario ? load_scenario(*options.scenario) : default_scenario();
    if (!config) return report(config.error());

    const Root root = root_at(options.root);
    if (is_initialised(root)) {
        if (!options.force) {
            return report(Error{kExitFailure, root.dir.string() +
                                                  " is already a gpusim root (use --force to "
                                                  "re-create it)"});
        }
        if (auto removed = remove_host(root); !removed) return report(removed.error());
    }
    if (auto created = create_host(root, *config); !created) return report(created.error());
    return kExitOk;
}

}  // namespace gpusim

#include "cli/guard_inputs.hpp"

#include <fmt/format.h>

#include <cerrno>

#include "cli/diagnostics.hpp"
#include "config/protected_list_file.hpp"
#include "engine/guard_test.hpp"
#include "engine/outcome_codes.hpp"
#include "guard/policy_yaml.hpp"

namespace gpukill::cli {

std::expected<PolicyFile, int> load_guard_policy(const GlobalOptions& global,
                                                 const std::optional<std::string>& policy_flag) {
    const std::string path =
        policy_flag ? *policy_flag : guard::default_policy_path(global.config_dir);
    auto policy = guard::load_policy_file(path);
    if (!policy) {
        if (policy.error().errno_value == ENOENT) {
            print_error(engine::missing_policy_message(path));
            return std::unexpected(exit_code::failure);
        }
        print_error(policy.error().what);
        return std::unexpected(policy.error().errno_value != 0 ? exit_code::failure
                                                               : exit_code::invalid_arguments);
    }
    return PolicyFile{path, std::move(*policy)};
}

std::expected<reclaim::ProtectedList, int> load_reclaim_protected(const GlobalOptions& global) {
    auto list = config::load_protected_list(global.config_dir);
    if (!list) {
        print_error(list.error().what);
        return std::unexpected(list.error().errno_value != 0 ? exit_code::failure
                                                             : exit_code::invalid_arguments);
    }
    return *list;
}

}  // namespace gpukill::cli

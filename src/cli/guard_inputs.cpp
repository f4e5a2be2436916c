#include "cli/guard_inputs.hpp"

#include <fmt/format.h>

#include <cerrno>

#include "cli/exit_codes.hpp"
#include "config/protected_list_file.hpp"
#include "guard/policy_yaml.hpp"
#include "history/usage_store.hpp"

namespace gpukill::cli {

std::expected<PolicyFile, int> load_guard_policy(const GlobalOptions& global,
                                                 const std::optional<std::string>& policy_flag) {
    const std::string path =
        policy_flag ? *policy_flag : guard::default_policy_path(global.config_dir);
    auto policy = guard::load_policy_file(path);
    if (!policy) {
        if (policy.error().errno_value == ENOENT) {
            fmt::print(stderr,
                       "gpukill: no guard policy at {} (write one: docs/examples/guard.yaml, or "
                       "pass --policy FILE)\n",
                       path);
            return std::unexpected(exit_code::failure);
        }
        fmt::print(stderr, "gpukill: {}\n", policy.error().what);
        return std::unexpected(policy.error().errno_value != 0 ? exit_code::failure
                                                               : exit_code::invalid_arguments);
    }
    return PolicyFile{path, std::move(*policy)};
}

std::expected<reclaim::ProtectedList, int> load_reclaim_protected(const GlobalOptions& global) {
    auto list = config::load_protected_list(global.config_dir);
    if (!list) {
        fmt::print(stderr, "gpukill: {}\n", list.error().what);
        return std::unexpected(list.error().errno_value != 0 ? exit_code::failure
                                                             : exit_code::invalid_arguments);
    }
    return *list;
}

guard::History history_from_store(const std::string& state_dir, std::int64_t since_unix_ms,
                                  std::int64_t until_unix_ms, std::vector<std::string>& notes) {
    guard::History history;
    auto store = history::UsageStore::open_read_only(state_dir);
    if (!store) {
        notes.push_back(
            fmt::format("no usage history ({}): stuck and idle rules see only the "
                        "samples taken from now on",
                        store.error().what));
        return history;
    }
    auto samples = (*store)->process_samples(
        history::SampleQuery{.since_unix_ms = since_unix_ms, .until_unix_ms = until_unix_ms});
    if (!samples) {
        notes.push_back("usage history unreadable: " + samples.error().what);
        return history;
    }
    history.add_samples(*samples);
    return history;
}

guard::GuardState saved_state(const std::string& state_dir, std::vector<std::string>& notes) {
    auto state = guard::load_state(state_dir);
    if (!state) {
        notes.push_back("saved warnings ignored: " + state.error().what);
        return {};
    }
    return *state;
}

std::size_t processes_judged(const Snapshot& snapshot) {
    std::size_t count = 0;
    for (const SnapshotProcess& process : snapshot.processes) {
        if (process.info_complete && !process.gpus.empty()) ++count;
    }
    return count;
}

}  // namespace gpukill::cli

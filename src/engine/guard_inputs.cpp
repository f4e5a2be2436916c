#include "engine/guard_inputs.hpp"

#include <fmt/format.h>

#include "history/usage_store.hpp"

namespace gpukill::engine {

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
        if (process.info_complete && !process.gpus.empty() && !process.observer()) ++count;
    }
    return count;
}

}  // namespace gpukill::engine

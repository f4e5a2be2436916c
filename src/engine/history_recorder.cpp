#include "engine/history_recorder.hpp"

#include <utility>

namespace gpukill::engine {

HistoryRecorder::HistoryRecorder(std::string state_dir, std::string config_dir,
                                 history::EnvironmentLookup env)
    : state_dir_(std::move(state_dir)), config_dir_(std::move(config_dir)), env_(std::move(env)) {}

std::optional<std::string> HistoryRecorder::warn_once(const std::string& why) {
    if (warned_) return std::nullopt;
    warned_ = true;
    return "usage history not recorded: " + why;
}

std::optional<std::string> HistoryRecorder::record(const Snapshot& snapshot) {
    if (!opened_) {
        opened_ = true;
        auto settings = history::load_history_settings(config_dir_, env_);
        if (!settings) return warn_once(settings.error().what);
        if (!settings->enabled) return std::nullopt;
        auto store = history::UsageStore::open(state_dir_, settings->store_options());
        if (!store) return warn_once(store.error().what);
        store_ = std::move(*store);
    }
    if (!store_) return std::nullopt;
    // A failed record (a lock held past the busy timeout, a full disk) may pass: a later
    // frame of a watch tries again, silently after the first warning.
    if (auto recorded = store_->record(snapshot); !recorded)
        return warn_once(recorded.error().what);
    return std::nullopt;
}

}  // namespace gpukill::engine

#include "cli/history_recorder.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <utility>

namespace gpukill::cli {

HistoryRecorder::HistoryRecorder(std::string state_dir, std::string config_dir,
                                 history::EnvironmentLookup env)
    : state_dir_(std::move(state_dir)), config_dir_(std::move(config_dir)), env_(std::move(env)) {}

HistoryRecorder::HistoryRecorder(const GlobalOptions& global)
    : HistoryRecorder(global.state_dir, global.config_dir, process_environment()) {}

void HistoryRecorder::warn_once(const std::string& why) {
    if (warned_) return;
    warned_ = true;
    fmt::print(stderr, "gpukill: usage history not recorded: {}\n", why);
}

void HistoryRecorder::record(const Snapshot& snapshot) {
    if (!opened_) {
        opened_ = true;
        auto settings = history::load_history_settings(config_dir_, env_);
        if (!settings) {
            warn_once(settings.error().what);
            return;
        }
        if (!settings->enabled) return;
        auto store = history::UsageStore::open(state_dir_, settings->store_options());
        if (!store) {
            warn_once(store.error().what);
            return;
        }
        store_ = std::move(*store);
    }
    if (!store_) return;
    // A failed record (a lock held past the busy timeout, a full disk) may pass: a later
    // frame of a watch tries again, silently after the first warning.
    if (auto recorded = store_->record(snapshot); !recorded) warn_once(recorded.error().what);
}

}  // namespace gpukill::cli

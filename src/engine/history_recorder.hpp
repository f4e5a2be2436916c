// Records the snapshots `list` and `watch` show into the usage history
// (history/usage_store.hpp), without ever blocking or breaking them: the store is opened
// once per run on the first snapshot; any problem (settings, a read-only or full state
// directory, a corrupt or foreign file, a lock held too long) is returned once, the
// first time, as "usage history not recorded: <why>", for the caller to show; the
// listing goes on unchanged. Disabled by GPUKILL_NO_HISTORY=1 or `enabled: false` in
// CONFIG_DIR/history.yaml (history/history_settings.hpp).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "history/history_settings.hpp"
#include "history/usage_store.hpp"
#include "model/snapshot.hpp"

namespace gpukill::engine {

class HistoryRecorder {
  public:
    HistoryRecorder(std::string state_dir, std::string config_dir, history::EnvironmentLookup env);

    // The whole snapshot, before any --gpu or --vendor restriction. The warning to show,
    // the first time there is one.
    std::optional<std::string> record(const Snapshot& snapshot);

  private:
    std::optional<std::string> warn_once(const std::string& why);

    std::string state_dir_;
    std::string config_dir_;
    history::EnvironmentLookup env_;
    bool opened_ = false;  // open attempted (once per run)
    bool warned_ = false;
    std::unique_ptr<history::UsageStore> store_;
};

}  // namespace gpukill::engine

#include "engine/guard_rogue.hpp"

#include <algorithm>
#include <memory>

#include "detect/assessment.hpp"
#include "detect/config_file.hpp"
#include "detect/facts_reader.hpp"
#include "history/usage_store.hpp"

namespace gpukill::engine {
namespace {

// The usage-shape signal looks back this far, as `audit --rogue` does by default.
constexpr std::int64_t kRogueHistoryMs = 24LL * 3600 * 1000;

std::string summary_of(const detect::Assessment& assessment) {
    std::string summary;
    for (std::size_t at = 0; at < assessment.evidence.size() && at < 3; ++at) {
        if (!summary.empty()) summary += "; ";
        summary += assessment.evidence[at].detail;
    }
    return summary;
}

}  // namespace

std::map<guard::IdentityKey, guard::RogueScore> rogue_scores_for(
    const HostRoots& roots, const std::string& config_dir, const std::string& state_dir,
    const guard::Policy& policy, const Snapshot& snapshot, std::vector<std::string>& notes) {
    std::map<guard::IdentityKey, guard::RogueScore> scores;
    const bool wanted = std::any_of(policy.rules.begin(), policy.rules.end(), [](const auto& rule) {
        return rule.kind == guard::RunawayKind::rogue;
    });
    if (!wanted) return scores;
    auto loaded = detect::load_rogue_config(config_dir, std::nullopt);
    if (!loaded) {
        notes.push_back("rogue rules match nothing: " + loaded.error().what);
        return scores;
    }
    detect::FactsContext context;
    context.roots = roots;
    context.now_unix_ms = snapshot.timestamp_unix_ms;
    context.config = &loaded->config;
    context.since_unix_ms = snapshot.timestamp_unix_ms - kRogueHistoryMs;
    std::unique_ptr<history::UsageStore> store;
    if (auto opened = history::UsageStore::open_read_only(state_dir)) {
        store = std::move(*opened);
        context.history = store.get();
    } else {
        context.history_note = "no usage history: shape not judged (" + opened.error().what + ")";
    }
    for (const detect::ProcessFacts& facts : detect::read_facts(snapshot, context)) {
        const detect::Assessment assessment = detect::assess(facts, loaded->config);
        if (assessment.allowed) continue;  // the rogue allow list exempts it
        const ProcessInfo& info = assessment.holder.info;
        scores[{info.pid, info.start_time_ticks}] =
            guard::RogueScore{static_cast<double>(assessment.score), summary_of(assessment)};
    }
    return scores;
}

}  // namespace gpukill::engine

#include "engine/rogue_scan.hpp"

#include <cerrno>
#include <memory>

#include "detect/facts_reader.hpp"
#include "engine/engine_state.hpp"
#include "engine/rogue_scoring.hpp"
#include "history/usage_store.hpp"

namespace gpukill::engine {
namespace {

bool user_matches(const ProcessInfo& info, const std::string& user) {
    return info.user == user || (info.uid && std::to_string(*info.uid) == user);
}

}  // namespace

RogueScoring score_rogues(const EngineConfig& settings, Snapshot snapshot,
                          const RogueScanRequest& request,
                          const detect::LoadedRogueConfig& config) {
    // An observer has no context on any GPU: nothing it could mine with (a miner needs one,
    // and the driver then lists it).
    std::erase_if(snapshot.processes, [&](const SnapshotProcess& holder) {
        return holder.observer() || (request.user && !user_matches(holder.info, *request.user));
    });
    const std::int64_t now = snapshot.timestamp_unix_ms;
    detect::FactsContext context;
    context.roots = settings.roots;
    context.now_unix_ms = now;
    context.config = &config.config;
    context.since_unix_ms = now - static_cast<std::int64_t>(request.hours * 3600.0 * 1000.0);
    std::unique_ptr<history::UsageStore> store;
    if (auto opened = history::UsageStore::open_read_only(settings.state_dir)) {
        store = std::move(*opened);
        context.history = store.get();
    } else {
        context.history_note = "no usage history: shape not judged (" + opened.error().what + ")";
    }
    std::vector<detect::Assessment> assessments;
    for (const detect::ProcessFacts& facts : detect::read_facts(snapshot, context)) {
        assessments.push_back(detect::assess(facts, config.config));
    }
    RogueScoring outcome;
    outcome.report = detect::build_report(std::move(assessments), config.config);
    outcome.context = detect::ReportContext{.host = snapshot.host,
                                            .timestamp_unix_ms = now,
                                            .config_source = config.source,
                                            .report_threshold = config.config.report_threshold,
                                            .window_hours = request.hours,
                                            .history_available = context.history != nullptr,
                                            .history_note = std::nullopt};
    if (!context.history) outcome.context.history_note = context.history_note;
    return outcome;
}

Result<RogueScanOutcome> rogue_scan(Engine& engine, const RogueScanRequest& request,
                                    const Actor& actor) {
    if (!(request.hours > 0)) {
        return fail(ErrorCategory::invalid_input, "the window must be more than 0 hours");
    }
    auto config = detect::load_rogue_config(engine.config().config_dir, request.config_file);
    if (!config) {
        // A file the caller named that is missing or malformed is the caller's mistake.
        const int error = config.error().errno_value;
        const bool named_wrong = request.config_file && (error == 0 || error == ENOENT ||
                                                         error == ENOTDIR || error == EISDIR);
        return std::unexpected(named_wrong ? as(ErrorCategory::invalid_input, config.error())
                                           : config.error());
    }
    const RogueScoring scored =
        score_rogues(engine.config(), host_snapshot(engine), request, *config);
    RogueScanOutcome outcome{.document = detect::report_json(scored.report, scored.context),
                             .findings = scored.report.findings.size(),
                             .audit_problem = std::nullopt};
    if (!scored.report.findings.empty()) {
        AuditTrail trail = start_trail(engine, actor, request.command);
        std::vector<nlohmann::ordered_json> records;
        for (const detect::Assessment& finding : scored.report.findings) {
            records.push_back(
                detect::rogue_finding_record(trail.who(), finding, config->source, trail.now()));
        }
        trail.append_all(records);
        outcome.audit_problem = trail.problem();
    }
    return outcome;
}

Result<std::map<std::string, std::size_t>> count_rogue_findings(const Engine& engine,
                                                                const Snapshot& snapshot) {
    auto config = detect::load_rogue_config(engine.config().config_dir, std::nullopt);
    if (!config) return std::unexpected(config.error());
    const RogueScoring scored =
        score_rogues(engine.config(), snapshot, RogueScanRequest{}, *config);
    std::map<std::string, std::size_t> counts;
    for (const detect::Assessment& finding : scored.report.findings) {
        ++counts[std::string(detect::risk_name(finding.risk))];
    }
    return counts;
}

}  // namespace gpukill::engine

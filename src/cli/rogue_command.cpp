// `gpukill audit --rogue`: every GPU holder judged by the rogue signals
// (src/detect), findings reported and appended to the audit log. Reports only.
#include "cli/rogue_command.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <memory>

#include "audit/audit_log.hpp"
#include "audit/envelope.hpp"
#include "audit/syslog_line.hpp"
#include "backends/registry.hpp"
#include "cli/diagnostics.hpp"
#include "cli/rogue_config_command.hpp"
#include "cli/rogue_table.hpp"
#include "detect/assessment.hpp"
#include "detect/config_file.hpp"
#include "detect/facts_reader.hpp"
#include "detect/rogue_json.hpp"
#include "discovery/discover.hpp"
#include "engine/outcome_codes.hpp"
#include "history/usage_store.hpp"
#include "model/json_text.hpp"

namespace gpukill::cli {
namespace {

namespace rogue = detect;

constexpr double kMaxWindowHours = 24.0 * 36'500;  // as `gpukill audit`: a century

std::int64_t now_unix_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// Flags that ask for something --rogue does not do are refused, not silently ignored.
std::optional<std::string> conflicting_flags(const AuditOptions& options) {
    const int modes = int(options.rogue) + int(options.rogue_config_print) +
                      int(options.rogue_config_export) +
                      int(options.rogue_config_import.has_value());
    if (modes > 1) {
        return "choose one of --rogue, --rogue-config, --rogue-export-config and "
               "--rogue-import-config";
    }
    if (options.rogue_config_import && options.rogue_config_file) {
        return "--rogue-import-config installs a file; --rogue-config-file does not apply";
    }
    if (options.summary) return "--audit-summary does not apply to rogue detection";
    if (options.actions) return "--actions does not apply to rogue detection";
    if (options.process) return "--audit-process does not apply to rogue detection";
    const bool detecting =
        !options.rogue_config_print && !options.rogue_config_export && !options.rogue_config_import;
    if (options.user && !detecting) return "--audit-user applies to --rogue only";
    return std::nullopt;
}

bool user_matches(const ProcessInfo& info, const std::string& user) {
    return info.user == user || (info.uid && std::to_string(*info.uid) == user);
}

// The findings' records, one write for all; syslog alone when the log cannot be opened.
void record_findings(const GlobalOptions& global, const std::vector<std::string>& argv,
                     const rogue::RogueReport& report, const std::string& config_source) {
    if (report.findings.empty()) return;
    const audit::Invocation who = audit::current_invocation(argv);
    std::vector<nlohmann::ordered_json> records;
    for (const rogue::Assessment& finding : report.findings) {
        records.push_back(rogue::rogue_finding_record(who, finding, config_source));
    }
    auto log = audit::AuditLog::open(global.state_dir);
    if (!log) {
        print_error("warning: audit log unavailable, findings go to syslog only: " +
                    log.error().what);
        for (const auto& record : records) {
            audit::system_syslog()(audit::syslog_priority(record), audit::syslog_line(record));
        }
        return;
    }
    if (auto appended = log->append_all(records); !appended) {
        print_error("warning: audit log write failed: " + appended.error().what);
    }
}

int detect(const GlobalOptions& global, const AuditOptions& options,
           const rogue::LoadedRogueConfig& loaded, const std::vector<std::string>& argv) {
    auto backends = open_backends(backend_config(global), std::nullopt);
    if (auto failure = requested_backend_failure(backends)) {
        print_error(*failure);
        return exit_code::failure;
    }
    Snapshot snapshot = discover(global.roots, backends);
    if (options.user) {
        std::erase_if(snapshot.processes, [&](const SnapshotProcess& holder) {
            return !user_matches(holder.info, *options.user);
        });
    }

    const std::int64_t now = now_unix_ms();
    rogue::FactsContext context;
    context.roots = global.roots;
    context.now_unix_ms = now;
    context.since_unix_ms = now - static_cast<std::int64_t>(options.hours * 3600.0 * 1000.0);
    std::unique_ptr<history::UsageStore> store;
    if (auto opened = history::UsageStore::open_read_only(global.state_dir)) {
        store = std::move(*opened);
        context.history = store.get();
    } else {
        context.history_note = "no usage history: shape not judged (" + opened.error().what + ")";
    }

    std::vector<rogue::Assessment> assessments;
    for (const rogue::ProcessFacts& facts : rogue::read_facts(snapshot, context)) {
        assessments.push_back(rogue::assess(facts, loaded.config));
    }
    const rogue::RogueReport report = rogue::build_report(std::move(assessments), loaded.config);
    record_findings(global, argv, report, loaded.source);

    rogue::ReportContext report_context;
    report_context.host = snapshot.host;
    report_context.timestamp_unix_ms = now;
    report_context.config_source = loaded.source;
    report_context.report_threshold = loaded.config.report_threshold;
    report_context.window_hours = options.hours;
    report_context.history_available = context.history != nullptr;
    if (!context.history) report_context.history_note = context.history_note;
    if (options.json) {
        std::fputs((json_text(rogue::report_json(report, report_context)) + "\n").c_str(), stdout);
    } else {
        std::fputs(render_rogue_table(report, report_context).c_str(), stdout);
    }
    return report.findings.empty() ? exit_code::ok : rogue_exit::findings_present;
}

}  // namespace

bool wants_rogue(const AuditOptions& options) {
    return options.rogue || options.rogue_config_print || options.rogue_config_export ||
           options.rogue_config_import.has_value() || options.rogue_config_file.has_value();
}

int run_rogue(const GlobalOptions& global, const AuditOptions& options,
              const std::vector<std::string>& argv) {
    if (auto conflict = conflicting_flags(options)) {
        print_error(*conflict);
        return exit_code::invalid_arguments;
    }
    if (!(options.hours > 0 && options.hours <= kMaxWindowHours)) {
        print_error(
            fmt::format("--audit-hours must be more than 0 and at most {:.0f}", kMaxWindowHours));
        return exit_code::invalid_arguments;
    }
    if (options.rogue_config_import) {
        return import_rogue_config(global, *options.rogue_config_import, options.json, argv);
    }
    auto loaded = rogue::load_rogue_config(global.config_dir, options.rogue_config_file);
    if (!loaded) {
        print_error(loaded.error().what);
        return rogue_config_error_exit_code(loaded.error());
    }
    if (options.rogue_config_print) return print_rogue_config(*loaded, options.json);
    if (options.rogue_config_export) {
        if (options.json) {
            print_error("--rogue-export-config writes YAML; use --rogue-config --json for JSON");
            return exit_code::invalid_arguments;
        }
        return export_rogue_config(*loaded);
    }
    return detect(global, options, *loaded, argv);
}

}  // namespace gpukill::cli

// `gpukill audit --rogue`: every GPU holder judged by the rogue signals
// (src/detect), findings reported and appended to the audit log. Reports only.
#include "cli/rogue_command.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <memory>

#include "audit/envelope.hpp"
#include "cli/diagnostics.hpp"
#include "cli/engine_session.hpp"
#include "cli/json_result.hpp"
#include "cli/rogue_config_command.hpp"
#include "cli/rogue_table.hpp"
#include "detect/assessment.hpp"
#include "detect/config_file.hpp"
#include "detect/rogue_json.hpp"
#include "engine/outcome_codes.hpp"
#include "engine/rogue_scan.hpp"
#include "model/json_text.hpp"

namespace gpukill::cli {
namespace {

namespace rogue = detect;

constexpr double kMaxWindowHours = 24.0 * 36'500;  // as `gpukill audit`: a century

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

int detect(const GlobalOptions& global, const AuditOptions& options,
           const rogue::LoadedRogueConfig& loaded, const std::vector<std::string>& argv) {
    auto engine = open_engine(global);
    if (!engine) return engine.error();
    auto scanned = engine::rogue_scan(
        **engine,
        engine::RogueScanRequest{
            .user = options.user, .hours = options.hours, .command = audit::shell_join(argv)},
        loaded, command_line_actor());
    if (!scanned) return report_error(scanned.error());
    if (scanned->audit_problem) print_error("warning: " + *scanned->audit_problem);
    if (options.json) {
        print_json_result(rogue::report_json(scanned->report, scanned->context));
    } else {
        std::fputs(
            render_rogue_table(scanned->report, scanned->context, global.output_width).c_str(),
            stdout);
    }
    return scanned->report.findings.empty() ? exit_code::ok : rogue_exit::findings_present;
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
    if (options.rogue_config_print)
        return print_rogue_config(*loaded, options.json, global.output_width);
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

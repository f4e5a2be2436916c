// `gpukill audit --rogue`: every GPU holder judged by the rogue signals
// (src/detect), findings reported and appended to the audit log. Reports only.
#include "cli/rogue_command.hpp"
#include "model/quoted_text.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <memory>

#include "cli/diagnostics.hpp"
#include "cli/engine_session.hpp"
#include "cli/json_result.hpp"
#include "cli/rogue_config_command.hpp"
#include "cli/rogue_table.hpp"
#include "engine/outcome_codes.hpp"
#include "engine/rogue_scan.hpp"
#include "model/json_text.hpp"

namespace gpukill::cli {
namespace {

// Flags that ask for something --rogue does not do are refused, not silently ignored.
std::optional<std::string> conflicting_flags(const AuditOptions& options,
                                             const RequestOptions& requests) {
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
    if (options.actions) return "--actions does not apply to rogue detection";
    const bool detecting =
        !options.rogue_config_print && !options.rogue_config_export && !options.rogue_config_import;
    if (!detecting) {
        for (const char* option :
             {"--audit-hours", "--audit-user", "--audit-process", "--audit-summary"}) {
            if (requests.given(option)) return std::string(option) + " applies to --rogue only";
        }
    }
    return std::nullopt;
}

int detect(const GlobalOptions& global, const AuditOptions& options, const RequestOptions& requests,
           const std::vector<std::string>& argv) {
    auto request = requests.request<engine::RogueScanRequest>();
    if (!request) return usage_error(request.error().what);
    request->config_file = options.rogue_config_file;
    request->command = shell_join(argv);
    auto engine = open_engine(global);
    if (!engine) return engine.error();
    auto scanned = engine::rogue_scan(**engine, *request, command_line_actor());
    if (!scanned) return report_error(scanned.error());
    if (scanned->audit_problem) print_error("warning: " + *scanned->audit_problem);
    if (options.json) {
        print_json_result(scanned->document);
    } else {
        std::fputs(render_rogue_table(scanned->document, global.output_width).c_str(), stdout);
    }
    return scanned->findings == 0 ? exit_code::ok : rogue_exit::findings_present;
}

}  // namespace

bool wants_rogue(const AuditOptions& options) {
    return options.rogue || options.rogue_config_print || options.rogue_config_export ||
           options.rogue_config_import.has_value() || options.rogue_config_file.has_value();
}

int run_rogue(const GlobalOptions& global, const AuditOptions& options,
              const RequestOptions& requests, const std::vector<std::string>& argv) {
    if (auto conflict = conflicting_flags(options, requests)) return usage_error(*conflict);
    if (options.rogue_config_import) {
        return import_rogue_config(global, *options.rogue_config_import, options.json, argv);
    }
    if (!options.rogue_config_print && !options.rogue_config_export) {
        return detect(global, options, requests, argv);
    }
    if (options.rogue_config_print) {
        return print_rogue_config(global, options.rogue_config_file, options.json,
                                  global.output_width);
    }
    if (options.json) {
        print_error("--rogue-export-config writes YAML; use --rogue-config --json for JSON");
        return exit_code::invalid_arguments;
    }
    return export_rogue_config(global, options.rogue_config_file);
}

}  // namespace gpukill::cli

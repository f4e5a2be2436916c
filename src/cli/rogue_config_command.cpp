#include "cli/rogue_config_command.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>

#include "audit/envelope.hpp"
#include "cli/diagnostics.hpp"
#include "cli/engine_session.hpp"
#include "cli/json_result.hpp"
#include "detect/rogue_json.hpp"
#include "engine/config_changes.hpp"
#include "engine/outcome_codes.hpp"
#include "host/proc_reader.hpp"
#include "model/json_text.hpp"

namespace gpukill::cli {
int rogue_config_error_exit_code(const Error& error) {
    switch (error.errno_value) {
        case 0:
        case ENOENT:
        case ENOTDIR:
        case EISDIR:
            return exit_code::invalid_arguments;
        case EACCES:
        case EPERM:
            return exit_code::permission_denied;
        default:
            return exit_code::failure;
    }
}

int print_rogue_config(const detect::LoadedRogueConfig& loaded, bool json, OutputWidth width) {
    if (json) {
        const nlohmann::ordered_json document = {
            {"schema_version", detect::kRogueSchemaVersion},
            {"source", loaded.source},
            {"config", detect::rogue_config_json(loaded.config)},
        };
        print_json_result(document);
        return exit_code::ok;
    }
    const std::string header =
        fmt::format("rogue-detection configuration in effect\nsource: {}\nsettings: docs/ROGUE.md",
                    loaded.source);
    std::fputs(fit_to_width(detect::rogue_config_yaml(loaded.config, header), width).c_str(),
               stdout);
    return exit_code::ok;
}

int export_rogue_config(const detect::LoadedRogueConfig& loaded) {
    const std::string header = fmt::format(
        "gpukill rogue-detection configuration, exported from {}\n"
        "install with: gpukill audit --rogue-import-config FILE (settings: docs/ROGUE.md)",
        loaded.source);
    std::fputs(detect::rogue_config_yaml(loaded.config, header).c_str(), stdout);
    return exit_code::ok;
}

int import_rogue_config(const GlobalOptions& global, const std::string& file, bool json,
                        const std::vector<std::string>& argv) {
    auto text = read_text_file(file);
    if (!text) {
        print_error(text.error().what);
        return rogue_config_error_exit_code(text.error());
    }
    auto engine = open_engine(global, false);
    if (!engine) return engine.error();
    auto done = engine::install_rogue_config(**engine, *text, file, audit::shell_join(argv),
                                             command_line_actor());
    if (!done) {
        print_error(done.error().what);
        if (done.error().category == ErrorCategory::invalid_input) {
            return exit_code::invalid_arguments;
        }
        return done.error().errno_value == EACCES || done.error().errno_value == EPERM
                   ? exit_code::permission_denied
                   : exit_code::failure;
    }
    const std::string* installed = &done->first;
    if (done->second.audit_problem) print_error("warning: " + *done->second.audit_problem);
    if (json) {
        const nlohmann::ordered_json document = {
            {"schema_version", detect::kRogueSchemaVersion},
            {"installed_path", *installed},
            {"from", file},
        };
        print_json_result(document);
    } else {
        fmt::print("installed {} as {}\n", file, *installed);
    }
    return exit_code::ok;
}

}  // namespace gpukill::cli

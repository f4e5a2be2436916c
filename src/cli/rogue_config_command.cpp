#include "cli/rogue_config_command.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>

#include "cli/diagnostics.hpp"
#include "cli/engine_session.hpp"
#include "cli/json_result.hpp"
#include "engine/config_changes.hpp"
#include "engine/outcome_codes.hpp"
#include "model/json_text.hpp"
#include "model/quoted_text.hpp"

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

int print_rogue_config(const GlobalOptions& global, const std::optional<std::string>& file,
                       bool json, OutputWidth width) {
    auto engine = open_engine(global, false);
    if (!engine) return engine.error();
    auto loaded = engine::rogue_config_text(**engine, file, "");
    if (!loaded) {
        print_error(loaded.error().what);
        return rogue_config_error_exit_code(loaded.error());
    }
    if (json) {
        print_json_result(loaded->document);
        return exit_code::ok;
    }
    auto shown = engine::rogue_config_text(
        **engine, file,
        fmt::format("rogue-detection configuration in effect\nsource: {}\nsettings: docs/ROGUE.md",
                    loaded->source));
    std::fputs(fit_to_width(shown->yaml, width).c_str(), stdout);
    return exit_code::ok;
}

int export_rogue_config(const GlobalOptions& global, const std::optional<std::string>& file) {
    auto engine = open_engine(global, false);
    if (!engine) return engine.error();
    auto loaded = engine::rogue_config_text(**engine, file, "");
    if (!loaded) {
        print_error(loaded.error().what);
        return rogue_config_error_exit_code(loaded.error());
    }
    auto exported = engine::rogue_config_text(
        **engine, file,
        fmt::format("gpukill rogue-detection configuration, exported from {}\n"
                    "install with: gpukill audit --rogue-import-config FILE (settings: "
                    "docs/ROGUE.md)",
                    loaded->source));
    std::fputs(exported->yaml.c_str(), stdout);
    return exit_code::ok;
}

int import_rogue_config(const GlobalOptions& global, const std::string& file, bool json,
                        const std::vector<std::string>& argv) {
    auto engine = open_engine(global, false);
    if (!engine) return engine.error();
    auto done = engine::import_rogue_config(**engine, file, shell_join(argv), command_line_actor());
    if (!done) {
        print_error(done.error().what);
        if (done.error().category == ErrorCategory::invalid_input) {
            return exit_code::invalid_arguments;
        }
        return rogue_config_error_exit_code(done.error());
    }
    const std::string* installed = &done->first;
    if (done->second.audit_problem) print_error("warning: " + *done->second.audit_problem);
    if (json) {
        const nlohmann::ordered_json document = {
            {"schema_version", 1},
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

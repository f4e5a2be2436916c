#include "cli/rogue_config_command.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>

#include "audit/audit_log.hpp"
#include "audit/envelope.hpp"
#include "audit/syslog_line.hpp"
#include "cli/diagnostics.hpp"
#include "detect/rogue_json.hpp"
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

int print_rogue_config(const detect::LoadedRogueConfig& loaded, bool json) {
    if (json) {
        const nlohmann::ordered_json document = {
            {"schema_version", detect::kRogueSchemaVersion},
            {"source", loaded.source},
            {"config", detect::rogue_config_json(loaded.config)},
        };
        std::fputs((json_text(document) + "\n").c_str(), stdout);
        return exit_code::ok;
    }
    const std::string header =
        fmt::format("rogue-detection configuration in effect\nsource: {}\nsettings: docs/ROGUE.md",
                    loaded.source);
    std::fputs(detect::rogue_config_yaml(loaded.config, header).c_str(), stdout);
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
    // Checked in full before anything is written: a wrong file changes nothing.
    if (auto parsed = detect::parse_rogue_config(*text, file); !parsed) {
        print_error(parsed.error().what);
        return exit_code::invalid_arguments;
    }
    auto installed = detect::install_rogue_config(global.config_dir, *text);
    if (!installed) {
        print_error(installed.error().what);
        return installed.error().errno_value == EACCES || installed.error().errno_value == EPERM
                   ? exit_code::permission_denied
                   : exit_code::failure;
    }
    // The allow lists decide what is never reported: changing them is an audited action.
    const auto record =
        detect::rogue_config_installed_record(audit::current_invocation(argv), *installed, file);
    if (auto log = audit::AuditLog::open(global.state_dir)) {
        if (auto appended = log->append(record); !appended) {
            print_error("warning: audit log write failed: " + appended.error().what);
        }
    } else {
        print_error("warning: audit log unavailable, recorded in syslog only: " + log.error().what);
        audit::system_syslog()(audit::syslog_priority(record), audit::syslog_line(record));
    }
    if (json) {
        const nlohmann::ordered_json document = {
            {"schema_version", detect::kRogueSchemaVersion},
            {"installed_path", *installed},
            {"from", file},
        };
        std::fputs((json_text(document) + "\n").c_str(), stdout);
    } else {
        fmt::print("installed {} as {}\n", file, *installed);
    }
    return exit_code::ok;
}

}  // namespace gpukill::cli

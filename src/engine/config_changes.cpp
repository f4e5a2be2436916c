#include "engine/config_changes.hpp"

#include <filesystem>

#include "detect/config_file.hpp"
#include "detect/rogue_json.hpp"
#include "engine/engine_state.hpp"
#include "guard/atomic_file.hpp"
#include "guard/guard_records.hpp"
#include "host/proc_reader.hpp"

namespace gpukill::engine {

Result<ConfigChange> write_guard_policy(Engine& engine, const PolicyWrite& write,
                                        const Actor& actor) {
    std::error_code made;
    const auto directory = std::filesystem::path(write.path).parent_path();
    if (!directory.empty()) std::filesystem::create_directories(directory, made);
    auto written = write.create_only ? guard::create_file_atomically(write.path, write.text, 0644)
                                     : guard::replace_file_atomically(write.path, write.text, 0644);
    if (!written) {
        return std::unexpected(written.error());
    }
    AuditTrail trail = start_trail(engine, actor, write.command);
    trail.append_all({guard::guard_policy_changed_record(trail.who(), write.path, write.change,
                                                         write.from, trail.now())});
    return ConfigChange{.audit_problem = trail.problem()};
}

Result<std::pair<std::string, ConfigChange>> install_rogue_config(Engine& engine,
                                                                  const std::string& text,
                                                                  const std::string& from,
                                                                  const std::string& command,
                                                                  const Actor& actor) {
    // Checked in full before anything is written: a wrong file changes nothing.
    if (auto parsed = detect::parse_rogue_config(text, from); !parsed) {
        return std::unexpected(as(ErrorCategory::invalid_input, parsed.error()));
    }
    auto installed = detect::install_rogue_config(engine.config().config_dir, text);
    if (!installed) return std::unexpected(installed.error());
    // The allow lists decide what is never reported: changing them is an audited action.
    AuditTrail trail = start_trail(engine, actor, command);
    trail.append_all(
        {detect::rogue_config_installed_record(trail.who(), *installed, from, trail.now())});
    return std::pair{*installed, ConfigChange{.audit_problem = trail.problem()}};
}

Result<RogueConfigText> rogue_config_text(const Engine& engine,
                                          const std::optional<std::string>& file,
                                          const std::string& header) {
    auto loaded = detect::load_rogue_config(engine.config().config_dir, file);
    if (!loaded) return std::unexpected(loaded.error());
    return RogueConfigText{.source = loaded->source,
                           .document = {{"schema_version", detect::kRogueSchemaVersion},
                                        {"source", loaded->source},
                                        {"config", detect::rogue_config_json(loaded->config)}},
                           .yaml = detect::rogue_config_yaml(loaded->config, header)};
}

Result<std::pair<std::string, ConfigChange>> import_rogue_config(Engine& engine,
                                                                 const std::string& file,
                                                                 const std::string& command,
                                                                 const Actor& actor) {
    auto text = read_text_file(file);
    if (!text) return std::unexpected(text.error());
    return install_rogue_config(engine, *text, file, command, actor);
}

}  // namespace gpukill::engine

#include "guard/guard_state.hpp"

#include <fmt/format.h>

#include <cerrno>

#include "guard/atomic_file.hpp"
#include "host/proc_reader.hpp"
#include "host/state_dir.hpp"
#include "model/json_text.hpp"

namespace gpukill::guard {

nlohmann::ordered_json state_to_json(const GuardState& state) {
    nlohmann::ordered_json warnings = nlohmann::ordered_json::array();
    for (const auto& [key, record] : state.warnings) {
        warnings.push_back({{"pid", key.pid},
                            {"start_time_ticks", key.start_time_ticks},
                            {"rule", key.rule_id},
                            {"first_warned_unix_ms", record.first_warned_unix_ms},
                            {"dry_run", record.dry_run}});
    }
    return {{"schema_version", kStateSchemaVersion},
            {"boot_time_unix_s", state.boot_time_unix_s
                                     ? nlohmann::ordered_json(*state.boot_time_unix_s)
                                     : nlohmann::ordered_json(nullptr)},
            {"warnings", warnings}};
}

Result<GuardState> parse_state(std::string_view text, std::string_view source) {
    auto bad = [&](std::string_view why) {
        return fail(fmt::format("{}: not a guard state file: {}", source, why));
    };
    nlohmann::json document = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (document.is_discarded() || !document.is_object()) return bad("not a JSON object");
    if (document.value("schema_version", 0) != kStateSchemaVersion) {
        return bad("schema_version is not 1");
    }
    GuardState state;
    const auto& boot = document["boot_time_unix_s"];
    if (boot.is_number_integer()) {
        state.boot_time_unix_s = boot.get<std::int64_t>();
    } else if (!boot.is_null()) {
        return bad("boot_time_unix_s is not an integer");
    }
    const auto& warnings = document["warnings"];
    if (!warnings.is_array()) return bad("warnings is not a list");
    // A missing member reads as null: const operator[] on an absent key is undefined.
    static const nlohmann::json absent;
    auto field = [](const nlohmann::json& entry, const char* key) -> const nlohmann::json& {
        auto found = entry.find(key);
        return found != entry.end() ? *found : absent;
    };
    for (const auto& entry : warnings) {
        if (!entry.is_object() || !field(entry, "pid").is_number_integer() ||
            !field(entry, "start_time_ticks").is_number_unsigned() ||
            !field(entry, "rule").is_string() ||
            !field(entry, "first_warned_unix_ms").is_number_integer() ||
            !field(entry, "dry_run").is_boolean()) {
            return bad(
                "a warning lacks pid, start_time_ticks, rule, first_warned_unix_ms or "
                "dry_run");
        }
        WarningKey key{entry["pid"].get<pid_t>(), entry["start_time_ticks"].get<std::uint64_t>(),
                       entry["rule"].get<std::string>()};
        state.warnings[key] = WarningRecord{entry["first_warned_unix_ms"].get<std::int64_t>(),
                                            entry["dry_run"].get<bool>()};
    }
    return state;
}

Result<GuardState> load_state(const std::string& state_dir) {
    const std::string path = state_file_path(state_dir, kStateFileName);
    auto text = read_text_file(path);
    if (!text) {
        if (text.error().errno_value == ENOENT) return GuardState{};
        return std::unexpected(text.error());
    }
    return parse_state(*text, path);
}

Result<void> save_state(const std::string& state_dir, const GuardState& state) {
    if (auto made = make_state_directory(state_dir); !made) return made;
    return replace_file_atomically(state_file_path(state_dir, kStateFileName),
                                   json_text(state_to_json(state)) + "\n", 0640);
}

}  // namespace gpukill::guard

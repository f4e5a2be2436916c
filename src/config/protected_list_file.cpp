#include "config/protected_list_file.hpp"

#include "model/quoted_text.hpp"

#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include <sys/types.h>

#include <cerrno>
#include <charconv>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "host/proc_reader.hpp"
#include "model/yaml_load.hpp"
#include "model/yaml_reader.hpp"

namespace gpukill::config {
namespace {

constexpr const char* kKnownKeys = "names, users, pids, replace_defaults";

// A value from the file inside an error line stays one line whatever the file holds.
std::string printable(std::string_view text) {
    return quote_escaped(text);
}

Result<void> read_names(const YamlReader& reader, const YAML::Node& list,
                        std::set<std::string>& out) {
    return reader.for_each_item(list, "names", [&](const YAML::Node& item) -> Result<void> {
        if (!item.IsScalar() || item.Scalar().empty()) {
            return reader.error(item.Mark(), "names: each entry must be a non-empty process name");
        }
        const std::string& name = item.Scalar();
        if (name.find('/') != std::string::npos) {
            const std::string base = name.substr(name.rfind('/') + 1);
            return reader.error(item.Mark(),
                                fmt::format("names: {} is a path; a name is matched against the "
                                            "process name and the executable's basename (e.g. {})",
                                            printable(name), printable(base)));
        }
        out.insert(name);
        return {};
    });
}

Result<void> read_users(const YamlReader& reader, const YAML::Node& list,
                        std::set<std::string>& out) {
    return reader.for_each_item(list, "users", [&](const YAML::Node& item) -> Result<void> {
        if (!item.IsScalar() || item.Scalar().empty()) {
            return reader.error(item.Mark(), "users: each entry must be a non-empty user name");
        }
        out.insert(item.Scalar());
        return {};
    });
}

Result<void> read_pids(const YamlReader& reader, const YAML::Node& list, std::set<pid_t>& out) {
    return reader.for_each_item(list, "pids", [&](const YAML::Node& item) -> Result<void> {
        const std::string text = item.IsScalar() ? item.Scalar() : "";
        long long pid = 0;
        const char* end = text.data() + text.size();
        auto [ptr, ec] = std::from_chars(text.data(), end, pid);
        const bool integer = is_plain_scalar(item) && !text.empty() && ptr == end &&
                             (ec == std::errc() || ec == std::errc::result_out_of_range);
        if (!integer) {
            return reader.error(
                item.Mark(), fmt::format("pids: {} is not an integer",
                                         item.IsScalar() ? printable(text) : std::string("entry")));
        }
        if (ec == std::errc() && pid <= 0) {
            return reader.error(item.Mark(), fmt::format("pids: {} is not a positive PID", text));
        }
        if (ec != std::errc() || pid > kMaxPid) {
            return reader.error(
                item.Mark(),
                fmt::format("pids: {} is above the largest possible PID ({})", text, kMaxPid));
        }
        out.insert(static_cast<pid_t>(pid));
        return {};
    });
}

struct FileEntries {
    reclaim::ProtectedList list;
    bool replace_defaults = false;
};

Result<FileEntries> read_document(const YamlReader& reader, const YAML::Node& document) {
    FileEntries entries;
    if (document.IsNull()) return entries;
    if (!document.IsMap()) {
        return reader.error(document.Mark(),
                            fmt::format("expected a mapping with the keys {}", kKnownKeys));
    }
    std::set<std::string> seen;
    for (const auto& pair : document) {
        const YAML::Node& key = pair.first;
        const YAML::Node& value = pair.second;
        const std::string name = key.IsScalar() ? key.Scalar() : "";
        if (!seen.insert(name).second) {
            return reader.error(key.Mark(), fmt::format("key {} appears twice", printable(name)));
        }
        Result<void> read;
        if (name == "names") {
            read = read_names(reader, value, entries.list.names);
        } else if (name == "users") {
            read = read_users(reader, value, entries.list.users);
        } else if (name == "pids") {
            read = read_pids(reader, value, entries.list.pids);
        } else if (name == "replace_defaults") {
            auto flag = reader.boolean(value, name);
            if (!flag) return std::unexpected(flag.error());
            entries.replace_defaults = *flag;
        } else {
            return reader.error(
                key.Mark(),
                fmt::format("unknown key {} (expected {})",
                            key.IsScalar() ? printable(name) : std::string("that is not a string"),
                            kKnownKeys));
        }
        if (!read) return std::unexpected(read.error());
    }
    return entries;
}

}  // namespace

Result<reclaim::ProtectedList> parse_protected_list(std::string_view text, std::string_view source,
                                                    const reclaim::ProtectedList& defaults) {
    const YamlReader reader{std::string(source)};
    auto document = reader.single_document(text);
    if (!document) return std::unexpected(document.error());
    FileEntries entries;
    if (*document) {
        auto read = read_document(reader, **document);
        if (!read) return std::unexpected(read.error());
        entries = std::move(*read);
    }
    if (entries.replace_defaults) return entries.list;
    reclaim::ProtectedList merged = defaults;
    merged.names.insert(entries.list.names.begin(), entries.list.names.end());
    merged.users.insert(entries.list.users.begin(), entries.list.users.end());
    merged.pids.insert(entries.list.pids.begin(), entries.list.pids.end());
    return merged;
}

Result<reclaim::ProtectedList> load_protected_list(const std::string& config_dir) {
    if (config_dir.empty()) return reclaim::default_protected_list();
    const std::string path = config_dir + "/" + kProtectedListFileName;
    auto text = read_text_file(path);
    if (!text) {
        if (text.error().errno_value == ENOENT) return reclaim::default_protected_list();
        return std::unexpected(text.error());
    }
    return parse_protected_list(*text, path, reclaim::default_protected_list());
}

}  // namespace gpukill::config

#include "config/protected_list_file.hpp"

#include "model/quoted_text.hpp"

#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include <sys/types.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <functional>
#include <optional>
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

// A program's file name: no '/', not "." or "..".
Result<std::string> program_name(const YamlReader& reader, const YAML::Node& node,
                                 std::string_view where) {
    if (!node.IsScalar() || node.Scalar().empty()) {
        return reader.error(node.Mark(),
                            fmt::format("{}: each entry must be a non-empty program name", where));
    }
    const std::string& name = node.Scalar();
    if (name.find('/') != std::string::npos) {
        const std::string base = name.substr(name.rfind('/') + 1);
        return reader.error(node.Mark(),
                            fmt::format("{}: {} is a path; a name is matched against the "
                                        "executable's file name (e.g. {}), a path is written as "
                                        "{{path: {}}}",
                                        where, printable(name), printable(base), printable(name)));
    }
    if (name == "." || name == "..") {
        return reader.error(node.Mark(), fmt::format("{}: {} is not a file name", where, name));
    }
    return name;
}

// An executable's absolute path, as /proc/PID/exe names it: no "." or ".." components,
// no empty ones, not ending in '/'.
Result<std::string> program_path(const YamlReader& reader, const YAML::Node& node) {
    if (!node.IsScalar() || node.Scalar().empty()) {
        return reader.error(node.Mark(), "names: path must be a non-empty absolute path");
    }
    const std::string& path = node.Scalar();
    bool canonical = path.front() == '/' && path.back() != '/';
    for (std::size_t start = 1; canonical && start <= path.size();) {
        const std::size_t end = std::min(path.find('/', start), path.size());
        const std::string_view part = std::string_view(path).substr(start, end - start);
        canonical = !part.empty() && part != "." && part != "..";
        start = end + 1;
    }
    if (!canonical) {
        return reader.error(node.Mark(),
                            fmt::format("names: path {} is not an absolute path in canonical "
                                        "form (/usr/lib/xorg/Xorg)",
                                        printable(path)));
    }
    return path;
}

// One entry of `names`: a program's file name, or a mapping naming it (`name`) or its
// path (`path`), optionally with the one account (`user`) it is protected for.
Result<void> read_program(const YamlReader& reader, const YAML::Node& item,
                          reclaim::ProtectedList& out) {
    if (!item.IsMap()) {
        auto name = program_name(reader, item, "names");
        if (!name) return std::unexpected(name.error());
        out.names.insert(*name);
        return {};
    }
    std::optional<std::string> program;
    bool is_path = false;
    std::optional<std::string> user;
    auto read = reader.for_each_key(
        item, "names", {"name", "path", "user"},
        [&](const std::string& key, const YAML::Node& key_node,
            const YAML::Node& value) -> Result<void> {
            if (key == "user") {
                auto text = reader.text(value, "user");
                if (!text) return std::unexpected(text.error());
                user = *text;
                return {};
            }
            if (program) {
                return reader.error(key_node.Mark(),
                                    "names: an entry has either name or path, not both");
            }
            auto text = key == "name" ? program_name(reader, value, "names: name")
                                      : program_path(reader, value);
            if (!text) return std::unexpected(text.error());
            program = *text;
            is_path = key == "path";
            return {};
        },
        false);
    if (!read) return read;
    if (!program) return reader.error(item.Mark(), "names: an entry needs a name or a path");
    if (user) {
        out.owned_programs[*program].insert(*user);
    } else {
        (is_path ? out.executable_paths : out.names).insert(*program);
    }
    return {};
}

Result<void> read_names(const YamlReader& reader, const YAML::Node& list,
                        reclaim::ProtectedList& out) {
    return reader.for_each_item(list, "names", [&](const YAML::Node& item) -> Result<void> {
        return read_program(reader, item, out);
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
            read = read_names(reader, value, entries.list);
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
    merged.executable_paths.insert(entries.list.executable_paths.begin(),
                                   entries.list.executable_paths.end());
    for (const auto& [program, users] : entries.list.owned_programs) {
        merged.owned_programs[program].insert(users.begin(), users.end());
    }
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

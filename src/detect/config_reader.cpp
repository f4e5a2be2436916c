// parse_rogue_config: the strict YAML reader (config_file.hpp).
#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "detect/config_file.hpp"
#include "detect/proc_net_tcp.hpp"
#include "model/byte_size.hpp"
#include "model/yaml_load.hpp"
#include "model/yaml_reader.hpp"

namespace gpukill::detect {
namespace {

bool has_space(const std::string& text) {
    return text.find_first_of(" \t\r\n") != std::string::npos;
}

std::string check_pattern(const std::string& name) {
    if (name.find('/') != std::string::npos) return "is a path; give the program's name";
    const auto star = name.find('*');
    if (star != std::string::npos && star + 1 != name.size()) {
        return "has '*' before its end; only a trailing '*' (a prefix) is supported";
    }
    if (name == "*") return "would match every process";
    return "";
}

// Kernel threads' names have '/' in them ("kworker/0:1", "irq/24-nvme0q0"); the rest is
// as for any name pattern.
std::string check_kernel_name(const std::string& name) {
    const auto star = name.find('*');
    if (star != std::string::npos && star + 1 != name.size()) {
        return "has '*' before its end; only a trailing '*' (a prefix) is supported";
    }
    if (name == "*") return "would match every process";
    return has_space(name) ? "must not contain spaces" : "";
}

constexpr std::size_t kMinSignatureBytes = 4;
constexpr std::size_t kMaxSignatureBytes = 64;

// Short strings turn up in any large binary by chance; control bytes cannot be shown.
std::string check_signature(const std::string& signature) {
    if (signature.size() < kMinSignatureBytes || signature.size() > kMaxSignatureBytes) {
        return fmt::format("must be {} to {} bytes long", kMinSignatureBytes, kMaxSignatureBytes);
    }
    for (const char c : signature) {
        if (c < 0x20 || c > 0x7e) return "must be printable ASCII";
    }
    return "";
}

std::string check_option(const std::string& option) {
    if (option.front() != '-') return "is not an option (it must start with '-')";
    if (option.find('=') != std::string::npos || has_space(option)) {
        return "must be the option word alone, without a value";
    }
    return "";
}

std::string check_word(const std::string& word) {
    return has_space(word) ? "must not contain spaces" : "";
}

std::string check_host(const std::string& host) {
    if (parse_ip_address(host)) return "";
    const bool name_chars =
        host.find_first_not_of(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") ==
        std::string::npos;
    if (!name_chars || host.front() == '.' || host.back() == '.' ||
        host.find("..") != std::string::npos) {
        return "is neither a host name nor an IP address (no scheme, port or path)";
    }
    return "";
}

std::string check_absolute(const std::string& path) {
    if (path.front() != '/') return "is not an absolute path";
    return "";
}

std::string check_dir(const std::string& path) {
    if (path.front() != '/') return "is not an absolute path";
    if (path.find_first_not_of('/') == std::string::npos) return "would cover every executable";
    return "";
}

std::string check_allowed_name(const std::string& name) {
    if (name.find('/') != std::string::npos) {
        return "is a path; put executables under allow.executables";
    }
    if (name.find('*') != std::string::npos) {
        return "has '*': allow lists match exactly, never by pattern";
    }
    return "";
}

Result<std::vector<unsigned>> read_ports(const YamlReader& reader, const YAML::Node& list) {
    std::vector<unsigned> ports;
    if (list.IsNull()) return ports;
    if (!list.IsSequence()) {
        return reader.error(list.Mark(),
                            "pool_ports must be a list, e.g. pool_ports: [3333, 4444]");
    }
    for (const YAML::Node& item : list) {
        auto port = reader.integer_in(item, "pool_ports", 1, 65535);
        if (!port) return std::unexpected(port.error());
        if (std::find(ports.begin(), ports.end(), *port) != ports.end()) {
            return reader.error(item.Mark(), fmt::format("pool_ports: {} is listed twice", *port));
        }
        ports.push_back(static_cast<unsigned>(*port));
    }
    return ports;
}

Result<void> read_risk(const YamlReader& reader, const YAML::Node& map, RiskThresholds& risk) {
    auto read = reader.for_each_entry(
        map, "risk_levels",
        [&](const std::string& name, const YAML::Node& key,
            const YAML::Node& value) -> Result<void> {
            int* target = name == "medium"     ? &risk.medium
                          : name == "high"     ? &risk.high
                          : name == "critical" ? &risk.critical
                                               : nullptr;
            if (target == nullptr) {
                return reader.unknown_key(key, "risk_levels", "medium, high, critical");
            }
            auto level = reader.integer_in(value, "risk_levels." + name, 1, kMaxScore);
            if (!level) return std::unexpected(level.error());
            *target = static_cast<int>(*level);
            return {};
        });
    if (!read) return read;
    if (!(risk.medium < risk.high && risk.high < risk.critical)) {
        return reader.error(map.Mark(),
                            fmt::format("risk_levels must rise: medium {} < high {} < critical {}",
                                        risk.medium, risk.high, risk.critical));
    }
    return {};
}

Result<void> read_weights(const YamlReader& reader, const YAML::Node& map, RogueConfig& config) {
    std::string known;
    for (Signal signal : kAllSignals) {
        if (!known.empty()) known += ", ";
        known += signal_name(signal);
    }
    return reader.for_each_entry(map, "weights",
                                 [&](const std::string& name, const YAML::Node& key,
                                     const YAML::Node& value) -> Result<void> {
                                     auto signal = signal_from_name(name);
                                     if (!signal) return reader.unknown_key(key, "weights", known);
                                     auto weight =
                                         reader.integer_in(value, "weights." + name, 0, kMaxScore);
                                     if (!weight) return std::unexpected(weight.error());
                                     config.set_weight(*signal, static_cast<int>(*weight));
                                     return {};
                                 });
}

// A size as people write them (512M, 1G), above 0 and, when `most` is given, at most
// that; `what` and `examples` word the error.
Result<std::uint64_t> read_size(const YamlReader& reader, const YAML::Node& value,
                                const std::string& where, std::optional<std::uint64_t> most,
                                std::string_view what, std::string_view examples) {
    auto bytes = is_plain_scalar(value) ? parse_byte_size(value.Scalar())
                                        : Result<std::uint64_t>(fail("not a size"));
    if (!bytes || *bytes == 0 || (most && *bytes > *most)) {
        const std::string bound = most ? fmt::format(" and at most {} MiB", *most >> 20) : "";
        return reader.error(value.Mark(),
                            fmt::format("{}: {} is not a {} above 0{} (e.g. {})", where,
                                        gpukill::shown(value), what, bound, examples));
    }
    return *bytes;
}

Result<void> read_usage_shape(const YamlReader& reader, const YAML::Node& map,
                              UsageShapeConfig& shape) {
    return reader.for_each_entry(
        map, "usage_shape",
        [&](const std::string& name, const YAML::Node& key,
            const YAML::Node& value) -> Result<void> {
            const std::string where = "usage_shape." + name;
            if (name == "min_utilization_percent") {
                auto percent = reader.integer_in(value, where, 1, 100);
                if (!percent) return std::unexpected(percent.error());
                shape.min_utilization_percent = static_cast<unsigned>(*percent);
            } else if (name == "min_minutes") {
                auto minutes = reader.number_in(value, where, 0, 525600, true);
                if (!minutes) return std::unexpected(minutes.error());
                shape.min_minutes = *minutes;
            } else if (name == "max_memory") {
                auto bytes =
                    read_size(reader, value, where, std::nullopt, "memory size", "512M, 1G");
                if (!bytes) return std::unexpected(bytes.error());
                shape.max_memory_bytes = *bytes;
            } else if (name == "max_memory_variation") {
                auto variation = reader.number_in(value, where, 0, 100, false);
                if (!variation) return std::unexpected(variation.error());
                shape.max_memory_variation = *variation;
            } else if (name == "max_sample_gap_seconds") {
                auto gap = reader.number_in(value, where, 0, 604800, true);
                if (!gap) return std::unexpected(gap.error());
                shape.max_sample_gap_seconds = *gap;
            } else {
                return reader.unknown_key(key, "usage_shape",
                                          "min_utilization_percent, min_minutes, max_memory, "
                                          "max_memory_variation, max_sample_gap_seconds");
            }
            return {};
        });
}

constexpr std::uint64_t kMostExecutableBytes = std::uint64_t{1} << 30;
constexpr std::uint64_t kMostConfigFileBytes = std::uint64_t{16} << 20;

Result<void> read_executable_scan(const YamlReader& reader, const YAML::Node& map,
                                  ExecutableScanConfig& scan) {
    return reader.for_each_entry(
        map, "executable_scan",
        [&](const std::string& name, const YAML::Node& key,
            const YAML::Node& value) -> Result<void> {
            const std::string where = "executable_scan." + name;
            if (name == "max_bytes") {
                auto bytes =
                    read_size(reader, value, where, kMostExecutableBytes, "size", "16M, 64M");
                if (!bytes) return std::unexpected(bytes.error());
                scan.max_bytes = *bytes;
            } else if (name == "min_signatures") {
                auto count = reader.integer_in(value, where, 1, 100);
                if (!count) return std::unexpected(count.error());
                scan.min_signatures = static_cast<unsigned>(*count);
            } else {
                return reader.unknown_key(key, "executable_scan", "max_bytes, min_signatures");
            }
            return {};
        });
}

Result<void> read_allow(const YamlReader& reader, const YAML::Node& map, AllowList& allow) {
    return reader.for_each_entry(
        map, "allow",
        [&](const std::string& name, const YAML::Node& key,
            const YAML::Node& value) -> Result<void> {
            Result<std::vector<std::string>> list;
            if (name == "users") {
                list = reader.strings(value, "allow.users", check_word);
                if (list) allow.users = *list;
            } else if (name == "executables") {
                list = reader.strings(value, "allow.executables", check_absolute);
                if (list) allow.executables = *list;
            } else if (name == "names") {
                list = reader.strings(value, "allow.names", check_allowed_name);
                if (list) allow.names = *list;
            } else {
                return reader.unknown_key(key, "allow", "users, executables, names");
            }
            if (!list) return std::unexpected(list.error());
            return {};
        });
}

constexpr const char* kTopLevelKeys =
    "report_threshold, check_threshold, risk_levels, weights, usage_shape, unattended_min_hours, "
    "miner_names, "
    "masquerade_names, miner_options, algorithms, pool_ports, pool_hosts, temp_dirs, "
    "kernel_thread_names, system_daemon_names, system_program_dirs, miner_signatures, "
    "executable_scan, config_file_max_bytes, allow";

Result<void> read_top_level(const YamlReader& reader, const YAML::Node& document,
                            RogueConfig& config) {
    if (document.IsNull()) return {};
    if (!document.IsMap()) {
        return reader.error(document.Mark(),
                            fmt::format("expected a mapping with the keys {}", kTopLevelKeys));
    }
    auto strings = [&](const YAML::Node& value, const std::string& key,
                       std::vector<std::string>& out,
                       const YamlReader::EntryCheck& check) -> Result<void> {
        auto list = reader.strings(value, key, check);
        if (!list) return std::unexpected(list.error());
        out = std::move(*list);
        return {};
    };
    return reader.for_each_entry(
        document, "the file",
        [&](const std::string& name, const YAML::Node& key,
            const YAML::Node& value) -> Result<void> {
            if (name == "report_threshold") {
                auto threshold = reader.integer_in(value, name, 1, kMaxScore);
                if (!threshold) return std::unexpected(threshold.error());
                config.report_threshold = static_cast<int>(*threshold);
                return {};
            }
            if (name == "check_threshold") {
                auto threshold = reader.integer_in(value, name, 1, kMaxScore);
                if (!threshold) return std::unexpected(threshold.error());
                config.check_threshold = static_cast<int>(*threshold);
                return {};
            }
            if (name == "unattended_min_hours") {
                auto hours = reader.number_in(value, name, 0, 87600, false);
                if (!hours) return std::unexpected(hours.error());
                config.unattended_min_hours = *hours;
                return {};
            }
            if (name == "risk_levels") return read_risk(reader, value, config.risk);
            if (name == "weights") return read_weights(reader, value, config);
            if (name == "usage_shape") return read_usage_shape(reader, value, config.usage_shape);
            if (name == "allow") return read_allow(reader, value, config.allow);
            if (name == "miner_names")
                return strings(value, name, config.miner_names, check_pattern);
            if (name == "masquerade_names") {
                return strings(value, name, config.masquerade_names, check_pattern);
            }
            if (name == "miner_options") {
                return strings(value, name, config.miner_options, check_option);
            }
            if (name == "algorithms") return strings(value, name, config.algorithms, check_word);
            if (name == "pool_hosts") return strings(value, name, config.pool_hosts, check_host);
            if (name == "temp_dirs") return strings(value, name, config.temp_dirs, check_dir);
            if (name == "kernel_thread_names") {
                return strings(value, name, config.kernel_thread_names, check_kernel_name);
            }
            if (name == "system_daemon_names") {
                return strings(value, name, config.system_daemon_names, check_pattern);
            }
            if (name == "system_program_dirs") {
                return strings(value, name, config.system_program_dirs, check_dir);
            }
            if (name == "miner_signatures") {
                return strings(value, name, config.miner_signatures, check_signature);
            }
            if (name == "executable_scan") {
                return read_executable_scan(reader, value, config.executable_scan);
            }
            if (name == "config_file_max_bytes") {
                auto bytes =
                    read_size(reader, value, name, kMostConfigFileBytes, "size", "64K, 1M");
                if (!bytes) return std::unexpected(bytes.error());
                config.config_file_max_bytes = *bytes;
                return {};
            }
            if (name == "pool_ports") {
                auto ports = read_ports(reader, value);
                if (!ports) return std::unexpected(ports.error());
                config.pool_ports = std::move(*ports);
                return {};
            }
            return reader.unknown_key(key, "the file", kTopLevelKeys);
        });
}

}  // namespace

Result<RogueConfig> parse_rogue_config(std::string_view text, std::string_view source) {
    const YamlReader reader{std::string(source)};
    auto document = reader.single_document(text);
    if (!document) return std::unexpected(document.error());
    RogueConfig config = default_rogue_config();
    if (*document) {
        if (auto read = read_top_level(reader, **document, config); !read) {
            return std::unexpected(read.error());
        }
    }
    return config;
}

}  // namespace gpukill::detect

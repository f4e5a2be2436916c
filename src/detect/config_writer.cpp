// rogue_config_yaml and rogue_config_json (config_file.hpp). The YAML is written by hand
// so that it reads like the documented example: numbers plain, every text value in
// double quotes (never misread as a number, a boolean or an alias), lists in flow
// style wrapped at 100 columns.
#include <fmt/format.h>

#include <string>

#include "detect/config_file.hpp"

#include "model/quoted_text.hpp"

namespace gpukill::detect {
namespace {

constexpr std::size_t kWrapColumn = 100;

// A YAML double-quoted scalar: quote_escaped's escapes (\", \\, \xNN) are YAML's too.
std::string yaml_quoted(std::string_view text) {
    return quote_escaped(text);
}

// "[a, b, c]", continuing on lines indented by `indent` + 2 when too long.
std::string flow_list(const std::vector<std::string>& items, std::size_t first_column,
                      std::size_t indent) {
    if (items.empty()) return "[]";
    std::string out = "[";
    std::size_t column = first_column + 1;
    for (std::size_t i = 0; i < items.size(); ++i) {
        std::string item = items[i] + (i + 1 < items.size() ? "," : "]");
        if (i > 0) {
            if (column + 1 + item.size() > kWrapColumn) {
                out += "\n" + std::string(indent + 2, ' ');
                column = indent + 2;
            } else {
                out += ' ';
                ++column;
            }
        }
        out += item;
        column += item.size();
    }
    return out;
}

std::string text_list(std::string_view key, const std::vector<std::string>& values,
                      std::size_t indent = 0) {
    std::vector<std::string> items;
    for (const std::string& value : values) items.push_back(yaml_quoted(value));
    const std::string lead = std::string(indent, ' ') + std::string(key) + ": ";
    return lead + flow_list(items, lead.size(), indent) + "\n";
}

// Sizes as people write them, exact: "1G" only when it is exactly 1 GiB.
std::string size_text(std::uint64_t bytes) {
    constexpr std::uint64_t kKi = 1024;
    for (auto [unit, factor] :
         {std::pair{"T", kKi * kKi * kKi * kKi}, std::pair{"G", kKi * kKi * kKi},
          std::pair{"M", kKi * kKi}, std::pair{"K", kKi}}) {
        if (bytes % factor == 0) return fmt::format("{}{}", bytes / factor, unit);
    }
    return std::to_string(bytes);
}

}  // namespace

std::string rogue_config_yaml(const RogueConfig& config, std::string_view header) {
    std::string out;
    std::string_view rest = header;
    while (!rest.empty()) {
        const auto newline = rest.find('\n');
        out += fmt::format("# {}\n", rest.substr(0, newline));
        rest = newline == std::string_view::npos ? std::string_view() : rest.substr(newline + 1);
    }
    out += fmt::format("report_threshold: {}\n", config.report_threshold);
    out += fmt::format("check_threshold: {}\n", config.check_threshold);
    out += fmt::format("risk_levels: {{medium: {}, high: {}, critical: {}}}\n", config.risk.medium,
                       config.risk.high, config.risk.critical);
    out += "weights:\n";
    for (Signal signal : kAllSignals) {
        out += fmt::format("  {}: {}\n", signal_name(signal), config.weight(signal));
    }
    const UsageShapeConfig& shape = config.usage_shape;
    out += "usage_shape:\n";
    out += fmt::format("  min_utilization_percent: {}\n", shape.min_utilization_percent);
    out += fmt::format("  min_minutes: {}\n", shape.min_minutes);
    out += fmt::format("  max_memory: {}\n", size_text(shape.max_memory_bytes));
    out += fmt::format("  max_memory_variation: {}\n", shape.max_memory_variation);
    out += fmt::format("  max_sample_gap_seconds: {}\n", shape.max_sample_gap_seconds);
    out += fmt::format("unattended_min_hours: {}\n", config.unattended_min_hours);
    out += text_list("miner_names", config.miner_names);
    out += text_list("masquerade_names", config.masquerade_names);
    out += text_list("miner_options", config.miner_options);
    out += text_list("algorithms", config.algorithms);
    std::vector<std::string> ports;
    for (unsigned port : config.pool_ports) ports.push_back(std::to_string(port));
    out += "pool_ports: " + flow_list(ports, 12, 0) + "\n";
    out += text_list("pool_hosts", config.pool_hosts);
    out += text_list("temp_dirs", config.temp_dirs);
    out += text_list("kernel_thread_names", config.kernel_thread_names);
    out += text_list("system_daemon_names", config.system_daemon_names);
    out += text_list("system_program_dirs", config.system_program_dirs);
    out += text_list("miner_signatures", config.miner_signatures);
    out += "executable_scan:\n";
    out += fmt::format("  max_bytes: {}\n", size_text(config.executable_scan.max_bytes));
    out += fmt::format("  min_signatures: {}\n", config.executable_scan.min_signatures);
    out += fmt::format("config_file_max_bytes: {}\n", size_text(config.config_file_max_bytes));
    out += "allow:\n";
    out += text_list("users", config.allow.users, 2);
    out += text_list("executables", config.allow.executables, 2);
    out += text_list("names", config.allow.names, 2);
    return out;
}

nlohmann::ordered_json rogue_config_json(const RogueConfig& config) {
    using json = nlohmann::ordered_json;
    json weights = json::object();
    for (Signal signal : kAllSignals)
        weights[std::string(signal_name(signal))] = config.weight(signal);
    const UsageShapeConfig& shape = config.usage_shape;
    return json{
        {"report_threshold", config.report_threshold},
        {"check_threshold", config.check_threshold},
        {"risk_levels",
         {{"medium", config.risk.medium},
          {"high", config.risk.high},
          {"critical", config.risk.critical}}},
        {"weights", weights},
        {"usage_shape",
         {{"min_utilization_percent", shape.min_utilization_percent},
          {"min_minutes", shape.min_minutes},
          {"max_memory_bytes", shape.max_memory_bytes},
          {"max_memory_variation", shape.max_memory_variation},
          {"max_sample_gap_seconds", shape.max_sample_gap_seconds}}},
        {"unattended_min_hours", config.unattended_min_hours},
        {"miner_names", config.miner_names},
        {"masquerade_names", config.masquerade_names},
        {"miner_options", config.miner_options},
        {"algorithms", config.algorithms},
        {"pool_ports", config.pool_ports},
        {"pool_hosts", config.pool_hosts},
        {"temp_dirs", config.temp_dirs},
        {"kernel_thread_names", config.kernel_thread_names},
        {"system_daemon_names", config.system_daemon_names},
        {"system_program_dirs", config.system_program_dirs},
        {"miner_signatures", config.miner_signatures},
        {"executable_scan",
         {{"max_bytes", config.executable_scan.max_bytes},
          {"min_signatures", config.executable_scan.min_signatures}}},
        {"config_file_max_bytes", config.config_file_max_bytes},
        {"allow",
         {{"users", config.allow.users},
          {"executables", config.allow.executables},
          {"names", config.allow.names}}},
    };
}

}  // namespace gpukill::detect

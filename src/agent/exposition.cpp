#include "agent/exposition.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "model/utf8.hpp"

namespace gpukill::agent {
namespace {

bool is_counter(const MetricFamily& family) {
    return std::string_view(family.type) == "counter";
}

}  // namespace

std::string escape_label_value(std::string_view value) {
    std::string out;
    out.reserve(value.size());
    for (std::size_t at = 0; at < value.size();) {
        const Utf8Char c = next_utf8(value, at);
        if (!c.valid) {
            out += "\xEF\xBF\xBD";  // U+FFFD
        } else if (c.length == 1 && value[at] == '\\') {
            out += "\\\\";
        } else if (c.length == 1 && value[at] == '"') {
            out += "\\\"";
        } else if (c.length == 1 && value[at] == '\n') {
            out += "\\n";
        } else {
            out.append(value.substr(at, c.length));
        }
        at += c.length;
    }
    return out;
}

MetricFamily& Exposition::family(std::string name, const char* type, std::string help) {
    families_.push_back(MetricFamily{std::move(name), type, std::move(help), {}});
    return families_.back();
}

void Exposition::sample(MetricFamily& family, const Labels& labels, double value) {
    add(family, labels, fmt::format("{}", value));
}

void Exposition::sample(MetricFamily& family, const Labels& labels, std::uint64_t value) {
    add(family, labels, std::to_string(value));
}

void Exposition::add(MetricFamily& family, const Labels& labels, const std::string& value) {
    std::string line = family.name + (is_counter(family) ? "_total" : "") + "{";
    const auto write = [&](const std::pair<std::string, std::string>& label, bool first) {
        if (!first) line += ',';
        line += label.first;
        line += "=\"";
        line += escape_label_value(label.second);
        line += '"';
    };
    bool host_named = false;
    for (std::size_t i = 0; i < labels.size(); ++i) {
        write(labels[i], i == 0);
        host_named |= labels[i].first == host_label_.first;
    }
    if (!host_named) write(host_label_, labels.empty());
    line += "} ";
    line += value;
    family.samples.push_back(std::move(line));
}

std::string Exposition::text() const {
    std::string out;
    for (const MetricFamily& family : families_) {
        if (family.samples.empty()) continue;
        // The text format names a counter family by its samples' name; OpenMetrics by the
        // name without _total.
        const std::string declared =
            family.name + (is_counter(family) && !openmetrics_ ? "_total" : std::string());
        out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", declared, family.help, declared,
                           family.type);
        for (const std::string& line : family.samples) {
            out += line;
            out += '\n';
        }
    }
    if (openmetrics_) out += "# EOF\n";
    return out;
}

}  // namespace gpukill::agent

// Writing metric families in the Prometheus text format (0.0.4) or OpenMetrics 1.0, pure.
// A family is declared once and filled sample by sample; each family's samples stay
// together, as both formats require. Every sample carries the host's label (dcgm-exporter's
// `Hostname`, or `hostname`), so every series names the host it is about, whatever
// relabelling the scraper does.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpukill::agent {

using Labels = std::vector<std::pair<std::string, std::string>>;

// A label value as the exposition formats write it between quotes: valid UTF-8, with
// backslash, double quote and newline escaped.
std::string escape_label_value(std::string_view value);

struct MetricFamily {
    std::string name;  // a counter's without _total: its samples carry the suffix
    const char* type = "gauge";
    std::string help;
    std::vector<std::string> samples;  // "name{labels} value" lines, without newline
};

class Exposition {
  public:
    // `host_label`: the label every sample ends with, unless it names it already.
    Exposition(bool openmetrics, std::pair<std::string, std::string> host_label)
        : openmetrics_(openmetrics), host_label_(std::move(host_label)) {}

    // The family, declared; references stay valid as more are declared.
    MetricFamily& family(std::string name, const char* type, std::string help);

    void sample(MetricFamily& family, const Labels& labels, double value);
    void sample(MetricFamily& family, const Labels& labels, std::uint64_t value);

    // Every family with at least one sample, HELP and TYPE first; OpenMetrics ends "# EOF".
    std::string text() const;

  private:
    void add(MetricFamily& family, const Labels& labels, const std::string& value);

    bool openmetrics_;
    std::pair<std::string, std::string> host_label_;
    std::deque<MetricFamily> families_;
};

}  // namespace gpukill::agent

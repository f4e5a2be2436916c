#include "detect/evidence.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace gpukill::detect {

std::string_view risk_name(RiskLevel risk) {
    switch (risk) {
        case RiskLevel::low:
            return "low";
        case RiskLevel::medium:
            return "medium";
        case RiskLevel::high:
            return "high";
        case RiskLevel::critical:
            return "critical";
    }
    return "low";
}

int total_score(const std::vector<Evidence>& evidence) {
    std::set<Signal> counted;
    long sum = 0;
    for (const Evidence& item : evidence) {
        if (!counted.insert(item.signal).second) continue;
        sum += std::max(item.weight, 0);
    }
    return static_cast<int>(std::min<long>(sum, kMaxScore));
}

RiskLevel risk_for(int score, const RiskThresholds& thresholds) {
    if (score >= thresholds.critical) return RiskLevel::critical;
    if (score >= thresholds.high) return RiskLevel::high;
    if (score >= thresholds.medium) return RiskLevel::medium;
    return RiskLevel::low;
}

std::optional<Evidence> make_evidence(const RogueConfig& config, Signal signal,
                                      std::string detail) {
    const int weight = config.weight(signal);
    if (weight <= 0) return std::nullopt;
    return Evidence{signal, weight, std::move(detail)};
}

void add_evidence(std::vector<Evidence>& evidence, Evidence more) {
    for (Evidence& existing : evidence) {
        if (existing.signal != more.signal) continue;
        existing.detail += "; " + more.detail;
        return;
    }
    evidence.push_back(std::move(more));
}

std::string join_examples(const std::vector<std::string>& items, std::size_t shown) {
    if (items.empty()) return "";
    if (items.size() == 1) return items.front();
    const std::size_t listed = std::min(items.size(), std::max<std::size_t>(shown, 1));
    std::string text;
    for (std::size_t i = 0; i < listed; ++i) {
        if (i > 0) text += (i + 1 == items.size()) ? " and " : ", ";
        text += items[i];
    }
    if (listed < items.size()) text += fmt::format(" and {} more", items.size() - listed);
    return text;
}

}  // namespace gpukill::detect

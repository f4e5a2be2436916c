// The evidence model: what one signal saw, with its weight and a sentence a person can
// check, and the score and risk level they add up to. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "detect/rogue_config.hpp"
#include "detect/signals.hpp"

namespace gpukill::detect {

struct Evidence {
    Signal signal;
    int weight = 0;
    std::string detail;  // e.g. `executable "xmrig" is a known miner program`
    friend bool operator==(const Evidence&, const Evidence&) = default;
};

enum class RiskLevel { low, medium, high, critical };

std::string_view risk_name(RiskLevel risk);

// Sum of the weights, one per signal (the first piece of evidence of a signal counts;
// signals are expected to merge their observations into one), capped at kMaxScore.
int total_score(const std::vector<Evidence>& evidence);

RiskLevel risk_for(int score, const RiskThresholds& thresholds);

// Evidence of `signal` with the configured weight, or nothing when the weight is 0
// (a signal switched off in the configuration leaves no trace in the score).
std::optional<Evidence> make_evidence(const RogueConfig& config, Signal signal, std::string detail);

// Adds `more` to `evidence`, keeping one piece per signal: when its signal is there
// already (the arguments and the configuration file they name both show a stratum URL),
// its detail joins the existing sentence ("...; ...") and the weight counts once.
void add_evidence(std::vector<Evidence>& evidence, Evidence more);

// "a", "a and b", "a, b and 2 more": several observations in one sentence, bounded.
std::string join_examples(const std::vector<std::string>& items, std::size_t shown = 3);

}  // namespace gpukill::detect

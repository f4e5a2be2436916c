// Signals from a command line: stratum URLs (stratum_url), pool endpoints and listed
// pool hosts (pool_address), mining algorithms (mining_algorithm), options only miners
// take (miner_option) and wallet-shaped tokens (wallet_address). Pure.
//
// Bounded whatever the process put in its arguments: only the first kMaxTokens
// arguments and the first kMaxTokenBytes of each are looked at, and every matcher is a
// single linear pass (no regular expressions).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "detect/evidence.hpp"
#include "detect/rogue_config.hpp"

namespace gpukill::detect {

inline constexpr std::size_t kMaxTokens = 256;
inline constexpr std::size_t kMaxTokenBytes = 4096;

// Options whose value is a pool (xmrig/cpuminer -o and --url, ethminer -P, lolMiner
// --pool, Claymore -epool, GMiner --server).
inline constexpr const char* kPoolOptions[] = {"-o",    "--url",  "-url", "--pool",
                                               "-pool", "-epool", "-P",   "--server"};
// Options whose value is an algorithm.
inline constexpr const char* kAlgorithmOptions[] = {"--algo", "-a", "--algorithm", "-algo"};

std::vector<Evidence> judge_command_line(const std::vector<std::string>& cmdline,
                                         const RogueConfig& config);

// The same over any sequence of words (a configuration file's, config_argument_signals.hpp),
// looking at the first `max_words` of them.
std::vector<Evidence> judge_words(const std::vector<std::string>& words, std::size_t max_words,
                                  const RogueConfig& config);

}  // namespace gpukill::detect

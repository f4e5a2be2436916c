#include "detect/cmdline_signals.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string_view>

#include "detect/endpoints.hpp"
#include "detect/names.hpp"
#include "detect/wallets.hpp"
#include "model/quoted_text.hpp"

namespace gpukill::detect {
namespace {

constexpr std::size_t kShownBytes = 100;  // of one argument inside a sentence

std::string shown(std::string_view text) {
    if (text.size() <= kShownBytes) return quote_escaped(text);
    return quote_escaped(std::string(text.substr(0, kShownBytes)) + "...");
}

// Where an endpoint points and nothing more: scheme, host and port. A URL's user and
// password (`stratum+tcp://WALLET.worker:PASSWORD@pool:3333`), path and query stay out of
// the evidence, which goes to the audit log, syslog and every API client.
std::string where_to(const Endpoint& endpoint) {
    std::string text = endpoint.scheme.empty() ? "" : endpoint.scheme + "://";
    text +=
        endpoint.host.find(':') != std::string::npos ? "[" + endpoint.host + "]" : endpoint.host;
    if (endpoint.port) text += fmt::format(":{}", *endpoint.port);
    return shown(text);
}

// Addresses are long; the start and the end are what a person compares.
std::string abbreviated(std::string_view address) {
    if (address.size() <= 20) return std::string(address);
    return fmt::format("{}...{}", address.substr(0, 10), address.substr(address.size() - 6));
}

template <std::size_t N>
bool one_of(std::string_view word, const char* const (&options)[N]) {
    return std::any_of(std::begin(options), std::end(options),
                       [&](const char* option) { return word == option; });
}

// "--url=VALUE" -> ("--url", "VALUE"); "--url" -> ("--url", none).
struct OptionWord {
    std::string_view name;
    std::optional<std::string_view> value;
};

OptionWord split_option(std::string_view token) {
    if (!token.starts_with('-')) return {token, std::nullopt};
    const auto eq = token.find('=');
    if (eq == std::string_view::npos) return {token, std::nullopt};
    return {token.substr(0, eq), token.substr(eq + 1)};
}

// Evidence of one signal gathered over the whole command line, merged into one sentence.
class Collector {
  public:
    void add(std::string observation) {
        if (std::find(seen_.begin(), seen_.end(), observation) == seen_.end()) {
            seen_.push_back(std::move(observation));
        }
    }
    void emit(std::vector<Evidence>& out, const RogueConfig& config, Signal signal,
              std::string_view lead) const {
        if (seen_.empty()) return;
        if (auto evidence =
                make_evidence(config, signal, fmt::format("{}{}", lead, join_examples(seen_)))) {
            out.push_back(std::move(*evidence));
        }
    }

  private:
    std::vector<std::string> seen_;
};

bool is_pool_port(std::uint16_t port, const RogueConfig& config) {
    return std::find(config.pool_ports.begin(), config.pool_ports.end(), port) !=
           config.pool_ports.end();
}

bool stratum_scheme(std::string_view scheme) {
    return scheme.size() >= 7 && equal_ignoring_case(scheme.substr(0, 7), "stratum");
}

// The wallet candidate inside a token: the value of --opt=VALUE, cut before a worker
// name or difficulty suffix ("WALLET.rig1", "WALLET+50000").
std::string_view wallet_candidate(std::string_view token) {
    const OptionWord word = split_option(token);
    std::string_view candidate = word.value ? *word.value : token;
    return candidate.substr(0, candidate.find_first_of(".+/@,"));
}

}  // namespace

std::vector<Evidence> judge_command_line(const std::vector<std::string>& cmdline,
                                         const RogueConfig& config) {
    return judge_words(cmdline, kMaxTokens, config);
}

std::vector<Evidence> judge_words(const std::vector<std::string>& cmdline, std::size_t max_words,
                                  const RogueConfig& config) {
    Collector stratum, pool, algorithm, option, wallet;
    const std::size_t count = std::min(cmdline.size(), max_words);
    for (std::size_t i = 0; i < count; ++i) {
        const std::string_view token = std::string_view(cmdline[i]).substr(0, kMaxTokenBytes);
        const std::optional<std::string_view> next =
            i + 1 < count
                ? std::optional(std::string_view(cmdline[i + 1]).substr(0, kMaxTokenBytes))
                : std::nullopt;
        const OptionWord word = split_option(token);
        const std::optional<std::string_view> value = word.value ? word.value : next;

        const auto url = find_url(token);
        if (url && stratum_scheme(url->scheme)) {
            const auto endpoint = parse_endpoint(url->url);
            stratum.add(endpoint ? where_to(*endpoint) : shown(url->scheme + "://"));
        }

        if (one_of(word.name, kPoolOptions) && value) {
            auto endpoint = parse_endpoint(*value);
            if (endpoint && endpoint->port && is_pool_port(*endpoint->port, config) &&
                !stratum_scheme(endpoint->scheme)) {
                pool.add(fmt::format("{} {} (port {} is a known pool port)", word.name,
                                     where_to(*endpoint), *endpoint->port));
            }
        }
        // A listed pool host anywhere: a bare argument, an option's value or a URL.
        const std::string_view place = word.value ? *word.value : token;
        if (place.find('.') != std::string_view::npos ||
            place.find(':') != std::string_view::npos) {
            if (auto endpoint = parse_endpoint(place)) {
                if (auto listed = listed_pool_host(endpoint->host, config.pool_hosts)) {
                    pool.add(fmt::format("pool host {} (listed: {})", shown(endpoint->host),
                                         shown(*listed)));
                }
            }
        }

        if (one_of(word.name, kAlgorithmOptions) && value) {
            for (const std::string& known : config.algorithms) {
                if (equal_ignoring_case(*value, known)) {
                    algorithm.add(fmt::format("{} {}", word.name, shown(*value)));
                    break;
                }
            }
        }

        if (std::find(config.miner_options.begin(), config.miner_options.end(), word.name) !=
            config.miner_options.end()) {
            option.add(shown(word.name));
        }

        const std::string_view candidate = wallet_candidate(token);
        if (auto kind = wallet_kind(candidate)) {
            wallet.add(fmt::format("{} ({} address shape)", abbreviated(candidate),
                                   wallet_kind_name(*kind)));
        }
    }
    std::vector<Evidence> evidence;
    stratum.emit(evidence, config, Signal::stratum_url, "stratum mining URL: ");
    pool.emit(evidence, config, Signal::pool_address, "mining pool in the arguments: ");
    algorithm.emit(evidence, config, Signal::mining_algorithm, "mining algorithm: ");
    option.emit(evidence, config, Signal::miner_option, "option only miners take: ");
    wallet.emit(evidence, config, Signal::wallet_address, "wallet-like argument: ");
    return evidence;
}

}  // namespace gpukill::detect

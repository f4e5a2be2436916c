#include "detect/wallets.hpp"

#include <algorithm>
#include <string>

namespace gpukill::detect {
namespace {

constexpr std::string_view kBase58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
constexpr std::string_view kBech32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

bool all_in(std::string_view text, std::string_view alphabet) {
    return std::all_of(text.begin(), text.end(),
                       [&](char c) { return alphabet.find(c) != std::string_view::npos; });
}

bool hex_digit(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool monero(std::string_view token) {
    if (token.size() != 95 && token.size() != 106) return false;
    const char network = token[0];
    if (network != '4' && !(network == '8' && token.size() == 95)) return false;
    const char second = token[1];
    if (!((second >= '0' && second <= '9') || second == 'A' || second == 'B')) return false;
    return all_in(token, kBase58);
}

bool ethereum(std::string_view token) {
    if (token.size() != 42 || token[0] != '0' || (token[1] != 'x' && token[1] != 'X')) {
        return false;
    }
    return std::all_of(token.begin() + 2, token.end(), hex_digit);
}

bool bitcoin(std::string_view token) {
    if (token.size() != 42 && token.size() != 62) return false;
    // bech32 is one case throughout; upper case is allowed (QR codes) and means the same.
    std::string lowered(token);
    const bool upper = std::all_of(token.begin(), token.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    });
    if (upper) {
        std::transform(lowered.begin(), lowered.end(), lowered.begin(), [](char c) {
            return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
        });
    }
    if (!lowered.starts_with("bc1q") && !lowered.starts_with("bc1p")) return false;
    return all_in(std::string_view(lowered).substr(3), kBech32);
}

bool ravencoin(std::string_view token) {
    return token.size() == 34 && token[0] == 'R' && all_in(token, kBase58);
}

}  // namespace

std::string_view wallet_kind_name(WalletKind kind) {
    switch (kind) {
        case WalletKind::monero:
            return "Monero";
        case WalletKind::ethereum:
            return "Ethereum";
        case WalletKind::bitcoin:
            return "Bitcoin";
        case WalletKind::ravencoin:
            return "Ravencoin";
    }
    return "unknown";
}

std::optional<WalletKind> wallet_kind(std::string_view token) {
    if (monero(token)) return WalletKind::monero;
    if (ethereum(token)) return WalletKind::ethereum;
    if (bitcoin(token)) return WalletKind::bitcoin;
    if (ravencoin(token)) return WalletKind::ravencoin;
    return std::nullopt;
}

}  // namespace gpukill::detect

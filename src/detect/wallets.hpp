// Whether a token has the exact shape of a cryptocurrency address miners are paid to.
// Hand-written matchers: linear, bounded by the fixed address lengths, no regex.
// Only shapes with a distinctive prefix and length are recognised (legacy Bitcoin
// "1..."/"3..." addresses look like any short base58 identifier and are not).
#pragma once

#include <optional>
#include <string_view>

namespace gpukill::detect {

enum class WalletKind { monero, ethereum, bitcoin, ravencoin };

std::string_view wallet_kind_name(WalletKind kind);  // "Monero", "Ethereum"...

// Monero: 95 base58 characters starting "4" or "8" then [0-9AB] (standard address or
// subaddress), or a 106-character integrated address starting "4".
// Ethereum (and every EVM chain): "0x" and 40 hexadecimal digits.
// Bitcoin segwit/taproot (bech32/bech32m): "bc1q" or "bc1p", 42 or 62 characters of
// the bech32 alphabet, one case throughout.
// Ravencoin: "R" and 33 base58 characters.
std::optional<WalletKind> wallet_kind(std::string_view token);

}  // namespace gpukill::detect

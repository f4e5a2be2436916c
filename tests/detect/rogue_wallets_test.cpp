// Wallet shapes: each kind's exact prefix, length and alphabet, and the near misses
// (hashes, ids, wrong lengths, foreign characters) that must not match.
#include "detect/wallets.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gpukill::detect {
namespace {

constexpr std::string_view kBase58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

// `length` base58 characters after `prefix`, deterministic.
std::string base58(std::string prefix, std::size_t length) {
    for (std::size_t i = 0; prefix.size() < length; ++i)
        prefix += kBase58[(i * 7) % kBase58.size()];
    return prefix;
}

TEST(RogueWallets, Monero) {
    EXPECT_EQ(wallet_kind(base58("4A", 95)), WalletKind::monero);
    EXPECT_EQ(wallet_kind(base58("89", 95)), WalletKind::monero);   // subaddress
    EXPECT_EQ(wallet_kind(base58("4B", 106)), WalletKind::monero);  // integrated
    EXPECT_FALSE(wallet_kind(base58("4A", 94)));
    EXPECT_FALSE(wallet_kind(base58("4C", 95)));
    EXPECT_FALSE(wallet_kind(base58("5A", 95)));
    EXPECT_FALSE(wallet_kind(base58("8A", 106)));
    std::string with_zero = base58("4A", 95);
    with_zero[50] = '0';  // not in base58
    EXPECT_FALSE(wallet_kind(with_zero));
}

TEST(RogueWallets, Ethereum) {
    EXPECT_EQ(wallet_kind("0x52908400098527886E0F7030069857D2E4169EE7"), WalletKind::ethereum);
    EXPECT_EQ(wallet_kind("0xde709f2102306220921060314715629080e2fb77"), WalletKind::ethereum);
    EXPECT_FALSE(wallet_kind("52908400098527886E0F7030069857D2E4169EE7"));  // a git hash
    EXPECT_FALSE(wallet_kind("0x52908400098527886E0F7030069857D2E4169EE"));
    EXPECT_FALSE(wallet_kind("0x52908400098527886E0F7030069857D2E4169EEG"));
}

TEST(RogueWallets, BitcoinSegwitAndTaproot) {
    EXPECT_EQ(wallet_kind("bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"), WalletKind::bitcoin);
    EXPECT_EQ(wallet_kind("BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ"), WalletKind::bitcoin);
    EXPECT_EQ(wallet_kind("bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297"),
              WalletKind::bitcoin);
    EXPECT_FALSE(wallet_kind("bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdQ"));  // mixed case
    EXPECT_FALSE(wallet_kind("bc1bar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"));  // 'b' not bech32
    EXPECT_FALSE(wallet_kind("bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5md"));
}

TEST(RogueWallets, Ravencoin) {
    EXPECT_EQ(wallet_kind("RKHmr8tTmxRXdT4aVMMXBbMJ2K6QKjxbA6"), WalletKind::ravencoin);
    EXPECT_FALSE(wallet_kind("RKHmr8tTmxRXdT4aVMMXBbMJ2K6QKjxbA"));
    EXPECT_FALSE(wallet_kind("RKHmr8tTmxRXdT4aVMMXBbMJ2K6QKjxbO6"));  // 'O' not base58
}

TEST(RogueWallets, OrdinaryArgumentsAreNotWallets) {
    for (const char* token : {"", "train.py", "--epochs", "0x1f", "/data/imagenet",
                              "4b9ba0f2c8e1d3f4a5b6c7d8e9f0a1b2c3d4e5f6", "Runs/exp-2024-01-01"}) {
        EXPECT_FALSE(wallet_kind(token)) << token;
    }
}

}  // namespace
}  // namespace gpukill::detect

// The miner-signature scanner: every signature found once, whatever the chunking (a
// signature split across chunks, fed a byte at a time), case-insensitively, with
// overlapping signatures and signatures inside others; and nothing when none occurs.
#include "detect/signature_scanner.hpp"

#include <gtest/gtest.h>

namespace gpukill::detect {
namespace {

using Strings = std::vector<std::string>;

Strings scan_in_chunks(const Strings& signatures, std::string_view text, std::size_t chunk) {
    SignatureScanner scanner(signatures);
    for (std::size_t at = 0; at < text.size(); at += chunk) scanner.feed(text.substr(at, chunk));
    EXPECT_EQ(scanner.bytes_fed(), text.size());
    return scanner.found();
}

TEST(RogueSignatureScanner, FoundWhateverTheChunking) {
    const Strings signatures = {"stratum+tcp", "kawpow", "mining.subscribe"};
    std::string binary(5000, '\0');
    binary += "ELF junk mining.subscribe more junk";
    binary += std::string(3000, '\x7f');
    binary += "STRATUM+TCP://";
    for (std::size_t chunk : {1u, 2u, 7u, 4096u, 1u << 20}) {
        EXPECT_EQ(scan_in_chunks(signatures, binary, chunk),
                  (Strings{"stratum+tcp", "mining.subscribe"}))
            << "chunk " << chunk;
    }
}

TEST(RogueSignatureScanner, OverlappingAndNestedSignatures) {
    const Strings signatures = {"xmrig", "rig-id", "donate-level", "donate", "nate-le"};
    EXPECT_EQ(scan_in_chunks(signatures, "--xmrig-id --donate-level=1", 3),
              (Strings{"xmrig", "rig-id", "donate-level", "donate", "nate-le"}));
    EXPECT_EQ(scan_in_chunks({"aab"}, "aaab", 1), Strings{"aab"}) << "a failure link is taken";
}

TEST(RogueSignatureScanner, EachOnceInTheGivenOrderAndNothingElse) {
    const Strings signatures = {"randomx", "cryptonight", "XMRig"};
    EXPECT_EQ(scan_in_chunks(signatures, "xmrig xmrig RandomX randomx", 5),
              (Strings{"randomx", "XMRig"}));
    EXPECT_TRUE(scan_in_chunks(signatures, "random x crypto night xmri g", 4).empty());
    EXPECT_TRUE(scan_in_chunks({}, "anything", 4).empty());
    EXPECT_TRUE(scan_in_chunks({""}, "anything", 4).empty()) << "an empty signature is ignored";
}

TEST(RogueSignatureScanner, RestartForgetsTheLastStream) {
    SignatureScanner scanner({"kawpow"});
    scanner.feed("kaw");
    scanner.restart();
    scanner.feed("pow");
    EXPECT_TRUE(scanner.found().empty()) << "a signature never spans two files";
    EXPECT_EQ(scanner.bytes_fed(), 3u);
    scanner.feed(" kawpow");
    EXPECT_EQ(scanner.found(), Strings{"kawpow"});
}

}  // namespace
}  // namespace gpukill::detect

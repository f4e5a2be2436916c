#include "net/access.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace gpukill::net {
namespace {

const std::string kSecretA(40, 'a');
const std::string kSecretB = "0123456789abcdef0123456789abcdef-ci";

TEST(TokenSet, ReadsNamesScopesAndSecrets) {
    auto set = TokenSet::parse(
        "# tokens\n\nmetrics read " + kSecretA + "\n  ci-bot act " + kSecretB + "  \n", "tokens");
    ASSERT_TRUE(set) << set.error().what;
    EXPECT_EQ(set->size(), 2U);
    const TokenEntry* reader = set->match(kSecretA);
    ASSERT_NE(reader, nullptr);
    EXPECT_EQ(reader->name, "metrics");
    EXPECT_TRUE(reader->can_read);
    EXPECT_FALSE(reader->can_act);
    const TokenEntry* actor = set->match(kSecretB);
    ASSERT_NE(actor, nullptr);
    EXPECT_EQ(actor->name, "ci-bot");
    EXPECT_TRUE(actor->can_read && actor->can_act);  // act implies read
}

TEST(TokenSet, MatchesOnlyTheWholeSecret) {
    auto set = TokenSet::parse("a read " + kSecretA + "\n", "tokens");
    ASSERT_TRUE(set);
    EXPECT_EQ(set->match(kSecretA.substr(0, 39)), nullptr);
    EXPECT_EQ(set->match(kSecretA + "a"), nullptr);
    EXPECT_EQ(set->match(""), nullptr);
}

TEST(TokenSet, NamesTheLineOfAMistake) {
    struct Case {
        std::string text;
        std::string error;
    };
    for (const Case& c : std::vector<Case>{
             {"a read\n", "tokens:1: expected NAME SCOPES SECRET"},
             {"\na write " + kSecretA + "\n", "tokens:2: unknown scope 'write'"},
             {"a read short\n", "tokens:1: the secret of 'a' must be at least 32"},
             {"a read " + kSecretA + "\na act " + kSecretB + "\n", "tokens:2: token name 'a'"},
             {"a/b read " + kSecretA + "\n", "tokens:1: a token name is"}}) {
        auto set = TokenSet::parse(c.text, "tokens");
        ASSERT_FALSE(set) << c.text;
        EXPECT_EQ(set.error().what.rfind(c.error, 0), 0U) << set.error().what;
        EXPECT_EQ(set.error().category, ErrorCategory::invalid_input);
    }
}

TEST(TokenSet, RefusesAFileOthersCanRead) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("gpukill-tokens-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "tokens").string();
    std::ofstream(path) << "a read " << kSecretA << "\n";
    ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
    auto loose = TokenSet::load(path);
    ASSERT_FALSE(loose);
    EXPECT_EQ(loose.error().category, ErrorCategory::permission);
    EXPECT_NE(loose.error().what.find("chmod 600"), std::string::npos);

    ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
    auto tight = TokenSet::load(path);
    ASSERT_TRUE(tight) << tight.error().what;
    EXPECT_NE(tight->match(kSecretA), nullptr);

    auto missing = TokenSet::load((dir / "none").string());
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().category, ErrorCategory::unavailable);
    std::filesystem::remove_all(dir);
}

TEST(ConstantTimeEqual, ComparesContentsAndLengths) {
    EXPECT_TRUE(constant_time_equal("abc", "abc"));
    EXPECT_FALSE(constant_time_equal("abc", "abd"));
    EXPECT_FALSE(constant_time_equal("abc", "abcd"));
    EXPECT_FALSE(constant_time_equal("", "a"));
    EXPECT_TRUE(constant_time_equal("", ""));
}

TEST(BearerSecret, ReadsOnlyTheBearerScheme) {
    EXPECT_EQ(bearer_secret("Bearer abc"), "abc");
    EXPECT_EQ(bearer_secret("bearer   abc  "), "abc");
    EXPECT_FALSE(bearer_secret("Basic YWxhZGRpbjpvcGVuc2VzYW1l"));
    EXPECT_FALSE(bearer_secret("Bearer"));
    EXPECT_FALSE(bearer_secret("Bearer a b"));
    EXPECT_FALSE(bearer_secret(""));
}

TEST(HostHeader, AcceptsLoopbackAndConfiguredNamesOnly) {
    for (const char* host : {"localhost", "localhost:9400", "LOCALHOST:1", "127.0.0.1",
                             "127.0.0.1:80", "127.1.2.3:5", "[::1]", "[::1]:9400"}) {
        EXPECT_TRUE(host_header_allowed(host, {})) << host;
    }
    for (const char* host : {"evil.example", "evil.example:9400", "127.0.0.1.evil.example",
                             "localhost.evil.example", "[::1", "", "10.0.0.1:9400", "127.0.0"}) {
        EXPECT_FALSE(host_header_allowed(host, {})) << host;
    }
    EXPECT_TRUE(host_header_allowed("gpu-07.lab:9400", {"gpu-07.lab"}));
    EXPECT_TRUE(host_header_allowed("GPU-07.lab", {"gpu-07.lab:9400"}));
    EXPECT_FALSE(host_header_allowed("gpu-08.lab", {"gpu-07.lab"}));
}

TEST(OriginHeader, RefusesForeignAndNullOrigins) {
    EXPECT_TRUE(origin_allowed(std::nullopt, {}));
    EXPECT_TRUE(origin_allowed("http://localhost:6274", {}));
    EXPECT_TRUE(origin_allowed("https://127.0.0.1", {}));
    EXPECT_TRUE(origin_allowed("http://[::1]:3000", {}));
    EXPECT_FALSE(origin_allowed("https://evil.example", {}));
    EXPECT_FALSE(origin_allowed("http://localhost.evil.example", {}));
    EXPECT_FALSE(origin_allowed("null", {}));
    EXPECT_FALSE(origin_allowed("file://", {}));
    EXPECT_FALSE(origin_allowed("http://localhost/path", {}));
    EXPECT_TRUE(origin_allowed("https://dash.lab", {"dash.lab"}));
}

TEST(LoopbackAddress, KnowsWhatStaysOnTheHost) {
    EXPECT_TRUE(is_loopback_address("127.0.0.1"));
    EXPECT_TRUE(is_loopback_address("127.0.0.1:9400"));
    EXPECT_TRUE(is_loopback_address("::1"));
    EXPECT_TRUE(is_loopback_address("[::1]:9400"));
    EXPECT_TRUE(is_loopback_address("localhost"));
    EXPECT_FALSE(is_loopback_address("0.0.0.0"));
    EXPECT_FALSE(is_loopback_address("::"));
    EXPECT_FALSE(is_loopback_address("10.1.2.3"));
    EXPECT_FALSE(is_loopback_address("127.0.0.1.nip.io"));
}

}  // namespace
}  // namespace gpukill::net

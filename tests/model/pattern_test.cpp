#include "model/pattern.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace gpukill {
namespace {

bool found(std::string_view pattern, std::string_view text) {
    auto compiled = Pattern::compile(pattern);
    EXPECT_TRUE(compiled.has_value()) << pattern << ": " << compiled.error().what;
    return compiled && compiled->search(text);
}

std::string refusal(std::string_view pattern) {
    auto compiled = Pattern::compile(pattern);
    EXPECT_FALSE(compiled.has_value()) << pattern << " compiled";
    return compiled ? std::string() : compiled.error().what;
}

TEST(Pattern, SearchesAnywhereInTheText) {
    EXPECT_TRUE(found("python", "/usr/bin/python3 train.py"));
    EXPECT_FALSE(found("python", "ruby"));
    EXPECT_TRUE(found("", "anything"));
    EXPECT_TRUE(found("", ""));
}

TEST(Pattern, AnchorsBindToTheWholeText) {
    EXPECT_TRUE(found("^python", "python train.py"));
    EXPECT_FALSE(found("^python", "/usr/bin/python"));
    EXPECT_TRUE(found("\\.py$", "python train.py"));
    EXPECT_FALSE(found("\\.py$", "python train.py --x"));
    EXPECT_TRUE(found("^$", ""));
}

TEST(Pattern, AlternationGroupsAndRepeats) {
    EXPECT_TRUE(found("torchrun|deepspeed", "deepspeed --num_gpus 8"));
    EXPECT_TRUE(found("(ab)+c", "xxababc"));
    EXPECT_FALSE(found("^(ab)+c", "xxababc"));
    EXPECT_TRUE(found("(?:ab){2}c", "ababc"));
    EXPECT_FALSE(found("^(?:ab){3}c", "ababc"));
    EXPECT_TRUE(found("^a{2,3}$", "aaa"));
    EXPECT_FALSE(found("^a{2,3}$", "aaaa"));
    EXPECT_FALSE(found("^a{2,3}$", "a"));
    EXPECT_TRUE(found("^a{2,}$", "aaaaaaa"));
    EXPECT_TRUE(found("^colou?r$", "color"));
    EXPECT_TRUE(found("^x*?y$", "xxy"));
    EXPECT_TRUE(found("^(a*)*$", "aaaa"));
    EXPECT_TRUE(found("^a{0}b$", "b"));
}

TEST(Pattern, ClassesAndEscapes) {
    EXPECT_TRUE(found("^[a-c]+$", "abcabc"));
    EXPECT_FALSE(found("^[a-c]+$", "abcd"));
    EXPECT_TRUE(found("^[^0-9]+$", "abc"));
    EXPECT_FALSE(found("[^0-9]", "123"));
    EXPECT_TRUE(found("^\\d+\\s\\w+$", "42 gpu_1"));
    EXPECT_TRUE(found("^[[:digit:][:upper:]]+$", "A1B2"));
    EXPECT_TRUE(found("^[\\D]+$", "abc"));
    EXPECT_FALSE(found("[\\D]", "123"));
    EXPECT_TRUE(found("\\bgpu\\b", "a gpu here"));
    EXPECT_FALSE(found("\\bgpu\\b", "gpukill"));
    EXPECT_TRUE(found("\\Bkill", "gpukill"));
    EXPECT_TRUE(found("a\\.b", "a.b"));
    EXPECT_FALSE(found("a\\.b", "axb"));
    EXPECT_TRUE(found("\\x41\\u00e9", "A\xc3\xa9"));
    EXPECT_TRUE(found("^[-a][a-]$", "--"));
    EXPECT_FALSE(found("[]", "anything"));  // ECMAScript: the empty class matches nothing
    EXPECT_TRUE(found("^[^]$", "x"));
    EXPECT_TRUE(found("a}", "a}"));
}

TEST(Pattern, CaseInsensitiveWithALeadingFlag) {
    EXPECT_TRUE(found("(?i)XMRIG", "/tmp/xmrig -o pool"));
    EXPECT_TRUE(found("(?i)[a-c]", "B"));
    EXPECT_FALSE(found("(?i)[^a]", "A"));
    EXPECT_FALSE(found("XMRIG", "xmrig"));
}

TEST(Pattern, ReadsTextAsUtf8) {
    EXPECT_TRUE(found("^.$", "\xc3\xa9"));  // one character, two bytes
    EXPECT_TRUE(found("^[\xc3\xa0-\xc3\xbf]$", "\xc3\xa9"));
    EXPECT_TRUE(found("^.$", "\xff"));  // an invalid byte is one character
    EXPECT_FALSE(found("[a-z]", "\xff"));
}

TEST(Pattern, RefusesRepeatCountsItCannotHonourExactly) {
    // These once compiled to "match everything" through an overflowing count.
    EXPECT_NE(refusal("x{4294967296}").find("repeat count 4294967296"), std::string::npos);
    EXPECT_NE(refusal("q{18446744073709551616}").find("exceeds 1000"), std::string::npos);
    EXPECT_NE(refusal("q{2147483648,}").find("exceeds 1000"), std::string::npos);
    EXPECT_NE(refusal("a{1,99999999999999999999999}").find("exceeds"), std::string::npos);
    EXPECT_NE(refusal("a{3,2}").find("below"), std::string::npos);
    EXPECT_NE(refusal("(a{1000}){1000}").find("too large"), std::string::npos);
}

TEST(Pattern, RefusesWhatItDoesNotSupport) {
    EXPECT_NE(refusal("(a)\\1").find("back-references"), std::string::npos);
    EXPECT_NE(refusal("(?=a)").find("look-around"), std::string::npos);
    EXPECT_NE(refusal("a{").find("'{'"), std::string::npos);
    EXPECT_NE(refusal("a{x}").find("'{'"), std::string::npos);
    EXPECT_NE(refusal("*a").find("nothing to repeat"), std::string::npos);
    EXPECT_NE(refusal("a**").find("nothing to repeat"), std::string::npos);
    EXPECT_NE(refusal("^*").find("nothing to repeat"), std::string::npos);
    EXPECT_NE(refusal("(a").find("missing ')'"), std::string::npos);
    EXPECT_NE(refusal("a)").find("unmatched ')'"), std::string::npos);
    EXPECT_NE(refusal("[a").find("missing ']'"), std::string::npos);
    EXPECT_NE(refusal("[z-a]").find("out of order"), std::string::npos);
    EXPECT_NE(refusal("\\q").find("unknown escape"), std::string::npos);
    EXPECT_NE(refusal("a\\").find("backslash"), std::string::npos);
    EXPECT_NE(refusal(std::string(300, '(') + std::string(300, ')')).find("nested"),
              std::string::npos);
}

TEST(Pattern, PathologicalPatternsSearchInLinearTime) {
    // (a|a)*$x backtracked for over a minute on 28 characters under std::regex.
    auto compiled = Pattern::compile("(a|a)*$x");
    ASSERT_TRUE(compiled);
    const std::string text(20'000, 'a');
    const auto start = std::chrono::steady_clock::now();
    EXPECT_FALSE(compiled->search(text));
    auto nested = Pattern::compile("(a*)*b");
    ASSERT_TRUE(nested);
    EXPECT_FALSE(nested->search(text));
    const auto elapsed = std::chrono::steady_clock::now() - start;
    EXPECT_LT(elapsed, std::chrono::seconds(5));  // linear: milliseconds in practice
}

}  // namespace
}  // namespace gpukill

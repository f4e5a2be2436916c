// Where RE2's syntax or matching differs from gpukill's documented patterns
// (docs/PATTERNS.md, "Through RE2"): each case here is read the documented way, or
// refused, and never passed to RE2 to mean something else.
#include "model/pattern.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gpukill {
namespace {

bool re2_found(std::string_view pattern, std::string_view text) {
    auto compiled = Pattern::compile(pattern);
    EXPECT_TRUE(compiled.has_value()) << pattern << ": " << compiled.error().what;
    return compiled && compiled->search(text);
}

std::string re2_refusal(std::string_view pattern) {
    auto compiled = Pattern::compile(pattern);
    EXPECT_FALSE(compiled.has_value()) << pattern << " compiled";
    return compiled ? std::string() : compiled.error().what;
}

TEST(PatternThroughRe2, DotAndNegatedClassesMatchANewline) {
    // RE2's `.` alone skips \n; an argument can hold one.
    EXPECT_TRUE(re2_found("^a.b$", "a\nb"));
    EXPECT_TRUE(re2_found("^a[^x]b$", "a\nb"));
}

TEST(PatternThroughRe2, CountsAreNeverReadAsText) {
    // RE2 reads a `{` whose count it cannot parse (a leading zero, nine digits) as text.
    EXPECT_TRUE(re2_found("^a{01}$", "a"));
    EXPECT_FALSE(re2_found("^a{01}$", "a{01}"));
    EXPECT_TRUE(re2_found("^a{0002,03}$", "aaa"));
}

TEST(PatternThroughRe2, EmptyClassesKeepTheirEcmascriptMeaning) {
    // RE2 would read `[]a]` as a class of `]` and `a`.
    EXPECT_FALSE(re2_found("[]a]", "a]"));
    EXPECT_FALSE(re2_found("[]a]", "]"));
    EXPECT_TRUE(re2_found("^[^]a]$", "xa]"));
}

TEST(PatternThroughRe2, WhiteSpaceIsEcmascriptsWhiteSpace) {
    // RE2's \s is [\t\n\f\r ]: no \v, no no-break space.
    EXPECT_TRUE(re2_found("^\\s$", "\v"));
    EXPECT_TRUE(re2_found("^\\s$", "\xc2\xa0"));
    EXPECT_TRUE(re2_found("^\\s$", "\xe2\x80\xa8"));
    EXPECT_FALSE(re2_found("\\S", "\xc2\xa0"));
    EXPECT_TRUE(re2_found("^[\\S]$", "x"));
    EXPECT_FALSE(re2_found("[\\S]", "\xef\xbb\xbf"));
}

TEST(PatternThroughRe2, EscapesKeepTheirEcmascriptMeaning) {
    EXPECT_TRUE(re2_found("^\\012$", std::string("\0"
                                                 "12",
                                                 3)));  // RE2: octal, a newline
    EXPECT_FALSE(re2_found("\\012", "\n"));
    EXPECT_TRUE(re2_found("^\\u00e9$", "\xc3\xa9"));     // RE2 has no \u
    EXPECT_TRUE(re2_found("^\\\xc3\xa9$", "\xc3\xa9"));  // an escaped non-ASCII character
    EXPECT_TRUE(re2_found("^[\\b]$", "\b"));             // backspace inside brackets
}

TEST(PatternThroughRe2, AByteThatIsNotUtf8IsTheReplacementCharacter) {
    EXPECT_TRUE(re2_found("^\\uFFFD$", "\xff"));
    EXPECT_TRUE(re2_found("^a.b$",
                          "a\xff"
                          "b"));
    EXPECT_TRUE(re2_found("^[^a]$", "\xfe"));
    EXPECT_TRUE(re2_found("^\\W$", "\x80"));
    EXPECT_TRUE(re2_found("^...$", "\xed\xa0\x80"));  // a surrogate's encoding: three bytes
    EXPECT_TRUE(re2_found("train", "\xff train"));    // the rest of the text is still read
}

TEST(PatternThroughRe2, CaseInsensitivityFollowsUnicode) {
    EXPECT_TRUE(
        re2_found("(?i)\xc3\x89"
                  "COLE",
                  "\xc3\xa9"
                  "cole"));  // ÉCOLE, école
    EXPECT_TRUE(re2_found("(?i)XMRIG", "xmrig"));
    EXPECT_FALSE(re2_found("(?i)[^a]", "A"));
}

TEST(PatternThroughRe2, RefusesWhatRe2WouldReadOtherwise) {
    EXPECT_NE(re2_refusal("(?s)a").find("inline flags"), std::string::npos);
    EXPECT_NE(re2_refusal("a(?i)b").find("inline flags"), std::string::npos);
    EXPECT_NE(re2_refusal("(?P<name>a)").find("named groups"), std::string::npos);
    EXPECT_NE(re2_refusal("\\pL").find("unknown escape \\p"), std::string::npos);
    EXPECT_NE(re2_refusal("\\Q*\\E").find("unknown escape \\Q"), std::string::npos);
    EXPECT_NE(re2_refusal("a\xff").find("byte 0xff that is not UTF-8 at offset 1"),
              std::string::npos);
    EXPECT_NE(re2_refusal("^*").find("nothing to repeat"), std::string::npos);  // RE2 takes it
    EXPECT_NE(re2_refusal("(?:^)+").find("nothing to repeat"), std::string::npos);
}

TEST(PatternThroughRe2, BoundsTheLengthOfAPattern) {
    EXPECT_TRUE(Pattern::compile(std::string(Pattern::kMaxLength, 'a')));
    EXPECT_EQ(re2_refusal(std::string(Pattern::kMaxLength + 1, 'a')),
              "pattern too long: 4097 bytes, at most 4096");
}

TEST(PatternThroughRe2, BoundsTheMemoryOfACompiledPattern) {
    // 200,000 steps: within RE2's own default of 8 MiB, over gpukill's 1 MiB.
    EXPECT_NE(re2_refusal("(?:" + std::string(200, 'a') + "){1000}").find("too large"),
              std::string::npos);
    EXPECT_TRUE(Pattern::compile("(?:" + std::string(50, 'a') + "){1000}"));
    EXPECT_TRUE(Pattern::compile("(?:[^a]{1000}){1}.{1000}\\S{1000}"));
}

TEST(PatternThroughRe2, RefusesNestedRepeatsThatMultiplyPastTheLimit) {
    EXPECT_TRUE(Pattern::compile("(a{2}){500}"));
    EXPECT_NE(re2_refusal("(a{2}){501}").find("nested repeats whose counts multiply past 1000"),
              std::string::npos);
}

TEST(PatternThroughRe2, CopiesSearchAlike) {
    auto compiled = Pattern::compile("torchrun|deepspeed");
    ASSERT_TRUE(compiled);
    const Pattern copy = *compiled;
    Pattern moved = std::move(*compiled);
    EXPECT_TRUE(copy.search("deepspeed --num_gpus 8"));
    EXPECT_TRUE(moved.search("torchrun --nproc 8"));
    EXPECT_EQ(copy.source(), "torchrun|deepspeed");
}

}  // namespace
}  // namespace gpukill

// gpukill_pattern_compare: the pattern engine before RE2 (bench/pattern_before.cpp)
// against the one after (src/model/pattern.cpp) on generated patterns and texts: which
// patterns each compiles and, where both do, whether each text matches. The patterns are
// strings of pieces of every construct of the documented syntax (docs/PATTERNS.md) and
// of malformed ones; the texts mix ASCII, multi-byte and invalid UTF-8, newlines and NUL.
// The differences docs/PATTERNS.md lists under "Through RE2" are counted apart; any
// other is printed and fails the run. Deterministic for a seed.
//
// Exit status: 0 no other difference, 2 another difference, 3 invalid arguments.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "bench_main.hpp"
#include "model/pattern.hpp"
#include "model/utf8.hpp"
#include "pattern_before.hpp"

namespace gpukill::bench {
namespace {

struct Options {
    std::size_t patterns = 400'000;
    std::size_t texts = 6;    // per pattern both compile
    std::size_t pieces = 12;  // at most, per pattern
    std::uint64_t seed = 1;
};

const char* const kPatternPieces[] = {
    "a",         "b",           "ab",
    "A",         ".",           "^",
    "$",         "|",           "(",
    ")",         "(?:",         "[",
    "]",         "[^",          "-",
    "\\d",       "\\D",         "\\w",
    "\\W",       "\\s",         "\\S",
    "\\b",       "\\B",         "*",
    "+",         "?",           "*?",
    "{2}",       "{1,3}",       "{0,}",
    "{0}",       "{01}",        "{",
    "}",         "{1000}",      "{600}",
    "{40}",      "\\x41",       "\\u00e9",
    "\\uFFFD",   "\xc3\xa9",    "\xff",
    "\\.",       "\\-",         "\\]",
    "[:alpha:]", "[:space:]",   "[]",
    "[^]",       "\\0",         "\\t",
    "\\n",       "\\v",         " ",
    "_",         "(a{2}){501}", "(?:abcdefghijklmnopqrstuvwxyz){1000}"};
const std::string_view kTextPieces[] = {
    "a",    "b",  "A",        "B", " ", "\xc3\xa9", "\xc3\x89",
    "\xff", "\n", "\v",       "0", "9", "_",        ".",
    "-",    "\t", "\xc2\xa0", "]", "[", "\x80",     std::string_view("\0", 1)};

bool is_utf8(std::string_view text) {
    for (std::size_t at = 0; at < text.size();) {
        const Utf8Char c = next_utf8(text, at);
        if (!c.valid) return false;
        at += c.length;
    }
    return true;
}

bool has_non_ascii(std::string_view text) {
    for (const char c : text) {
        if (static_cast<unsigned char>(c) >= 0x80) return true;
    }
    return false;
}

std::string printable(std::string_view text) {
    std::string shown;
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        shown += byte >= 0x20 && byte < 0x7f ? std::string(1, c) : fmt::format("\\x{:02x}", byte);
    }
    return shown;
}

// Which difference of docs/PATTERNS.md ("Through RE2") explains a text that matches
// under one engine only; empty when none does.
std::string documented_match_difference(std::string_view pattern, std::string_view text) {
    if (pattern.starts_with("(?i)") && has_non_ascii(text)) return "Unicode case folding";
    if (pattern.find("\\B") != std::string_view::npos) return "\\B between bytes";
    if (!is_utf8(text) && pattern.find("\\u") != std::string_view::npos) return "U+FFFD";
    return {};
}

int run(const Options& options) {
    std::mt19937_64 random(options.seed);
    const auto below = [&](std::size_t n) { return static_cast<std::size_t>(random() % n); };
    std::size_t both_compile = 0;
    std::size_t texts = 0;
    std::size_t documented = 0;
    std::size_t other = 0;
    const auto report_other = [&](const std::string& what) {
        if (++other <= 10) std::cout << "difference: " << what << "\n";
    };
    for (std::size_t i = 0; i < options.patterns; ++i) {
        std::string pattern = below(8) == 0 ? "(?i)" : "";
        for (std::size_t n = below(options.pieces + 1); n > 0; --n) {
            pattern += kPatternPieces[below(std::size(kPatternPieces))];
        }
        auto before = before::Pattern::compile(pattern);
        auto after = Pattern::compile(pattern);
        if (!before && !after) continue;
        if (!before || !after) {
            const std::string& why = before ? after.error().what : before.error().what;
            // Before: 20,000 steps at most. After: RE2's limits, and UTF-8 patterns only.
            const bool listed = before ? (why.find("not UTF-8") != std::string::npos ||
                                          why.find("nested repeats") != std::string::npos)
                                       : why.find("too large") != std::string::npos;
            if (listed) {
                ++documented;
            } else {
                report_other(fmt::format("`{}` compiles {} only ({})", printable(pattern),
                                         before ? "before" : "after", why));
            }
            continue;
        }
        ++both_compile;
        for (std::size_t t = 0; t < options.texts; ++t) {
            std::string text;
            for (std::size_t n = below(7); n > 0; --n) {
                text += kTextPieces[below(std::size(kTextPieces))];
            }
            ++texts;
            const bool matched_before = before->search(text);
            if (matched_before == after->search(text)) continue;
            if (!documented_match_difference(pattern, text).empty()) {
                ++documented;
            } else {
                report_other(fmt::format("`{}` on \"{}\": {} before, {} after", printable(pattern),
                                         printable(text), matched_before, !matched_before));
            }
        }
    }
    std::cout << fmt::format(
        "seed {}: {} patterns, {} compiled by both, {} texts searched by both; differences "
        "docs/PATTERNS.md lists: {}; others: {}\n",
        options.seed, options.patterns, both_compile, texts, documented, other);
    return other == 0 ? 0 : 2;
}

}  // namespace
}  // namespace gpukill::bench

int main(int argc, char** argv) {
    using namespace gpukill::bench;
    Options options;
    CLI::App app{"Compares the pattern engine before RE2 with the one after."};
    app.add_option("--patterns", options.patterns, "patterns generated")->capture_default_str();
    app.add_option("--texts", options.texts, "texts per pattern both compile")
        ->capture_default_str();
    app.add_option("--pieces", options.pieces, "pieces per pattern, at most")
        ->capture_default_str()
        ->check(CLI::Range(1, 400));
    app.add_option("--seed", options.seed, "random seed")->capture_default_str();
    if (auto code = parse_arguments(app, argc, argv)) return *code;
    return run_interruptible("gpukill_pattern_compare", [&] { return run(options); });
}

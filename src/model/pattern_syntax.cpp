// One pass of recursive descent over the documented syntax, writing RE2's as it goes.
// Only what the two syntaxes could read differently needs care; everything is written
// in the one spelling that RE2 reads in one way: letters, digits and `_` as themselves,
// every other character as \x{HEX}, classes as explicit ranges, groups as (?:...).
#include "model/pattern_syntax.hpp"

#include "model/pattern.hpp"
#include "model/utf8.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace gpukill {
namespace {

using CodePoint = std::uint32_t;
constexpr CodePoint kLastCodePoint = 0x10ffff;
constexpr int kMaxNesting = 200;

struct Range {
    CodePoint low;
    CodePoint high;
};
using Ranges = std::vector<Range>;

// Every code point that is in none of `ranges`.
Ranges complement(Ranges ranges) {
    std::sort(ranges.begin(), ranges.end(),
              [](const Range& a, const Range& b) { return a.low < b.low; });
    Ranges outside;
    CodePoint next = 0;
    for (const Range& r : ranges) {
        if (r.low > next) outside.push_back({next, r.low - 1});
        next = std::max(next, r.high + 1);
    }
    if (next <= kLastCodePoint) outside.push_back({next, kLastCodePoint});
    return outside;
}

// \d \w \s and their complements \D \W \S. RE2's \s leaves out \v, and all of them
// leave out the Latin-1 and Unicode spaces ECMAScript's \s has: hence explicit ranges.
Ranges class_escape(char letter) {
    Ranges ranges;
    switch (letter) {
        case 'd':
        case 'D':
            ranges = {{'0', '9'}};
            break;
        case 'w':
        case 'W':
            ranges = {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}};
            break;
        default:  // s, S: ECMAScript's white space and line terminators below U+FFFF
            ranges = {{'\t', '\r'}, {' ', ' '}, {0xa0, 0xa0}, {0x2028, 0x2029}, {0xfeff, 0xfeff}};
            break;
    }
    const bool negated = letter == 'D' || letter == 'W' || letter == 'S';
    return negated ? complement(std::move(ranges)) : ranges;
}

void write_code_point(std::string& out, CodePoint c) {
    const bool plain =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (plain) {
        out.push_back(static_cast<char>(c));
    } else {
        out += fmt::format("\\x{{{:x}}}", c);
    }
}

void write_class(std::string& out, const Ranges& ranges, bool negated) {
    // RE2 reads `[]` and `[^]` as the start of a class holding `]`: ECMAScript's empty
    // class (nothing) and its negation (anything) are written as ranges too.
    if (ranges.empty()) {
        out += negated ? "[\\x{0}-\\x{10ffff}]" : "[^\\x{0}-\\x{10ffff}]";
        return;
    }
    out += negated ? "[^" : "[";
    for (const Range& r : ranges) {
        write_code_point(out, r.low);
        if (r.high != r.low) {
            out.push_back('-');
            write_code_point(out, r.high);
        }
    }
    out.push_back(']');
}

// Each reading function writes what it read to `out_` and returns whether it was a
// lone assertion (^ $ \b \B, alone or alone in a group): those cannot be repeated.
class Translator {
  public:
    explicit Translator(std::string_view pattern) : text_(pattern) {}

    Result<Re2Syntax> run() {
        Re2Syntax result;
        if (text_.starts_with("(?i)")) {
            result.ignore_case = true;
            at_ = 4;
        }
        if (auto read = alternation(0); !read) return std::unexpected(read.error());
        if (!done()) return error("unmatched ')'");
        result.pattern = std::move(out_);
        return result;
    }

  private:
    std::unexpected<Error> error(const std::string& what) const {
        return fail(what + " at offset " + std::to_string(at_));
    }
    bool done() const { return at_ >= text_.size(); }
    char peek() const { return text_[at_]; }
    static bool is_quantifier(char c) { return c == '*' || c == '+' || c == '?' || c == '{'; }
    std::unexpected<Error> nothing_to_repeat() const {
        return error("nothing to repeat before '" + std::string(1, peek()) + "'");
    }

    Result<bool> alternation(int depth) {
        if (depth > kMaxNesting) return error("groups nested deeper than 200");
        std::size_t branches = 0;
        bool lone_assertion = false;
        while (true) {
            auto branch = concat(depth);
            if (!branch) return branch;
            ++branches;
            lone_assertion = *branch;
            if (done() || peek() != '|') break;
            ++at_;
            out_.push_back('|');
        }
        return branches == 1 && lone_assertion;
    }

    Result<bool> concat(int depth) {
        std::size_t pieces = 0;
        bool lone_assertion = false;
        while (!done() && peek() != '|' && peek() != ')') {
            auto piece = repeat(depth);
            if (!piece) return piece;
            ++pieces;
            lone_assertion = *piece;
        }
        return pieces == 1 && lone_assertion;
    }

    Result<bool> repeat(int depth) {
        auto atom = read_atom(depth);
        if (!atom) return atom;
        if (done() || !is_quantifier(peek())) return atom;
        if (*atom) return nothing_to_repeat();
        const char q = peek();
        ++at_;
        if (q == '{') {
            if (auto counted = counts(); !counted) return std::unexpected(counted.error());
        } else {
            out_.push_back(q);
        }
        if (!done() && peek() == '?') ++at_;  // lazy: the same set of matching texts
        if (!done() && is_quantifier(peek())) return nothing_to_repeat();
        return false;
    }

    // A count, read digit by digit and refused as soon as it passes kMaxRepeat, so no
    // count can wrap around; empty when there are no digits.
    Result<std::optional<unsigned>> number() {
        const std::size_t start = at_;
        std::uint64_t value = 0;
        while (!done() && peek() >= '0' && peek() <= '9') {
            value = std::min<std::uint64_t>(value * 10 + (peek() - '0'), 1'000'000'000ULL);
            ++at_;
        }
        if (at_ == start) return std::optional<unsigned>{};
        if (value > Pattern::kMaxRepeat) {
            return fail("repeat count " + std::string(text_.substr(start, at_ - start)) +
                        " at offset " + std::to_string(start) + " exceeds " +
                        std::to_string(Pattern::kMaxRepeat));
        }
        return std::optional<unsigned>(static_cast<unsigned>(value));
    }

    // After '{': n}, n,} or n,m}, written again without leading zeros (`{01}` is text to RE2).
    Result<void> counts() {
        const std::string malformed =
            "'{' that does not start a repeat {n}, {n,} or {n,m} (write \\{ for a brace)";
        auto low = number();
        if (!low) return std::unexpected(low.error());
        if (!*low) return error(malformed);
        std::string written = fmt::format("{{{}", **low);
        if (!done() && peek() == ',') {
            ++at_;
            auto high = number();
            if (!high) return std::unexpected(high.error());
            if (*high && **high < **low) return error("repeat {n,m} with m below n");
            written += *high ? fmt::format(",{}", **high) : ",";
        }
        if (done() || peek() != '}') return error(malformed);
        ++at_;
        out_ += written + "}";
        return {};
    }

    Result<bool> read_atom(int depth) {
        switch (peek()) {
            case '(': {
                ++at_;
                if (!done() && peek() == '?') {
                    if (text_.substr(at_, 2) != "?:") {
                        return error(
                            "look-around, named groups and inline flags other than a "
                            "leading (?i) are not supported");
                    }
                    at_ += 2;
                }
                out_ += "(?:";
                auto inner = alternation(depth + 1);
                if (!inner) return inner;
                if (done() || peek() != ')') return error("missing ')'");
                ++at_;
                out_.push_back(')');
                return inner;
            }
            case '[':
                if (auto read = char_class(); !read) return std::unexpected(read.error());
                return false;
            case '.':
                ++at_;
                out_ += "(?s:.)";  // RE2's `.` alone leaves out \n
                return false;
            case '^':
                ++at_;
                out_ += "\\A";
                return true;
            case '$':
                ++at_;
                out_ += "\\z";
                return true;
            case '\\':
                return escape_atom();
            case '*':
            case '+':
            case '?':
            case '{':
                return nothing_to_repeat();
            default: {
                auto c = character();
                if (!c) return std::unexpected(c.error());
                write_code_point(out_, *c);
                return false;
            }
        }
    }

    // The UTF-8 character at the offset. RE2 refuses a pattern that is not UTF-8, and
    // so does this, with the offset.
    Result<CodePoint> character() {
        const Utf8Char c = next_utf8(text_, at_);
        if (!c.valid) return error(fmt::format("byte 0x{:02x} that is not UTF-8", c.code));
        at_ += c.length;
        return c.code;
    }

    Result<bool> escape_atom() {
        const std::string_view two = text_.substr(at_, 2);
        if (two == "\\b" || two == "\\B") {  // ASCII word boundaries in both syntaxes
            at_ += 2;
            out_ += two;
            return true;
        }
        Ranges set;
        auto c = escape(set, false);
        if (!c) return std::unexpected(c.error());
        if (*c) {
            write_code_point(out_, **c);
        } else {
            write_class(out_, set, false);
        }
        return false;
    }

    // After a backslash: one character, or none when it was a class escape, whose
    // ranges are then added to `set`.
    Result<std::optional<CodePoint>> escape(Ranges& set, bool in_class) {
        using Character = std::optional<CodePoint>;
        ++at_;  // the backslash
        if (done()) return error("pattern ends with a lone backslash");
        const char c = peek();
        ++at_;
        switch (c) {
            case 'd':
            case 'D':
            case 'w':
            case 'W':
            case 's':
            case 'S': {
                const Ranges ranges = class_escape(c);
                set.insert(set.end(), ranges.begin(), ranges.end());
                return Character{};
            }
            case 't':
                return Character('\t');
            case 'n':
                return Character('\n');
            case 'r':
                return Character('\r');
            case 'f':
                return Character('\f');
            case 'v':
                return Character('\v');
            case '0':  // NUL; digits after it are digits (RE2 would read \012 as octal)
                return Character(0);
            case 'b':
                if (in_class) return Character('\b');
                break;
            case 'x':
            case 'u': {
                const std::size_t digits = c == 'x' ? 2 : 4;
                CodePoint value = 0;
                for (std::size_t i = 0; i < digits; ++i) {
                    if (done() || !std::isxdigit(static_cast<unsigned char>(peek()))) {
                        return error(std::string("\\") + c + " needs " + std::to_string(digits) +
                                     " hex digits");
                    }
                    const char d = peek();
                    value = value * 16 + (d <= '9' ? d - '0' : (d | 0x20) - 'a' + 10);
                    ++at_;
                }
                return Character(value);
            }
            default:
                break;
        }
        if (c >= '1' && c <= '9') return error("back-references are not supported");
        if (std::isalnum(static_cast<unsigned char>(c))) {
            return error(std::string("unknown escape \\") + c);
        }
        if (static_cast<unsigned char>(c) >= 0x80) {  // an escaped non-ASCII character
            at_ -= 1;
            auto escaped = character();
            if (!escaped) return std::unexpected(escaped.error());
            return Character(*escaped);
        }
        return Character(static_cast<CodePoint>(c));  // escaped punctuation
    }

    Result<void> posix_class(Ranges& into) {
        const std::size_t close = text_.find(":]", at_ + 2);
        if (close == std::string_view::npos) return error("unterminated [: class name");
        const std::string_view name = text_.substr(at_ + 2, close - at_ - 2);
        static const std::pair<std::string_view, Ranges> known[] = {
            {"alpha", {{'A', 'Z'}, {'a', 'z'}}},
            {"digit", {{'0', '9'}}},
            {"alnum", {{'0', '9'}, {'A', 'Z'}, {'a', 'z'}}},
            {"upper", {{'A', 'Z'}}},
            {"lower", {{'a', 'z'}}},
            {"space", {{'\t', '\r'}, {' ', ' '}}},
            {"blank", {{'\t', '\t'}, {' ', ' '}}},
            {"punct", {{'!', '/'}, {':', '@'}, {'[', '`'}, {'{', '~'}}},
            {"xdigit", {{'0', '9'}, {'A', 'F'}, {'a', 'f'}}},
            {"cntrl", {{0, 0x1f}, {0x7f, 0x7f}}},
            {"print", {{' ', '~'}}},
            {"graph", {{'!', '~'}}},
        };
        for (const auto& [known_name, ranges] : known) {
            if (name == known_name) {
                into.insert(into.end(), ranges.begin(), ranges.end());
                at_ = close + 2;
                return {};
            }
        }
        return error("unknown class [:" + std::string(name) + ":]");
    }

    // One class member: a character (returned) or a set, added to `into`.
    Result<std::optional<CodePoint>> class_member(Ranges& into) {
        if (text_.substr(at_, 2) == "[:") {
            if (auto added = posix_class(into); !added) return std::unexpected(added.error());
            return std::optional<CodePoint>{};
        }
        if (peek() == '\\') return escape(into, true);
        auto c = character();
        if (!c) return std::unexpected(c.error());
        return std::optional<CodePoint>(*c);
    }

    Result<void> char_class() {
        ++at_;  // '['
        bool negated = false;
        if (!done() && peek() == '^') {
            negated = true;
            ++at_;
        }
        Ranges ranges;
        while (true) {
            if (done()) return error("missing ']'");
            if (peek() == ']') {
                ++at_;
                break;
            }
            auto low = class_member(ranges);
            if (!low) return std::unexpected(low.error());
            if (!*low) continue;
            if (at_ + 1 < text_.size() && peek() == '-' && text_[at_ + 1] != ']') {
                ++at_;
                auto high = class_member(ranges);
                if (!high) return std::unexpected(high.error());
                if (!*high) return error("a range in [...] must end with a single character");
                if (**high < **low) return error("range out of order in [...]");
                ranges.push_back({**low, **high});
            } else {
                ranges.push_back({**low, **low});
            }
        }
        write_class(out_, ranges, negated);
        return {};
    }

    std::string_view text_;
    std::size_t at_ = 0;
    std::string out_;
};

}  // namespace

Result<Re2Syntax> to_re2_syntax(std::string_view pattern) {
    return Translator(pattern).run();
}

}  // namespace gpukill

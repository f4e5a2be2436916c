// Pattern over RE2: the pattern is checked and written out in RE2's syntax by
// to_re2_syntax (pattern_syntax.hpp), then compiled by RE2 within kMaxMemoryBytes and
// searched by it.
#include "model/pattern.hpp"

#include "model/pattern_syntax.hpp"
#include "model/utf8.hpp"

#include <re2/re2.h>

#include <utility>

namespace gpukill {
namespace {

// Why RE2 refused a pattern that to_re2_syntax accepted. It refuses every count above
// kMaxRepeat first, so RE2's repeat-size error is about nesting: RE2 multiplies the
// counts of repeats inside repeats and refuses a product above 1000.
std::string refusal(const re2::RE2& compiled) {
    switch (compiled.error_code()) {
        case re2::RE2::ErrorRepeatSize:
            return "pattern too large: nested repeats whose counts multiply past " +
                   std::to_string(Pattern::kMaxRepeat) + " (lower its repeat counts)";
        case re2::RE2::ErrorPatternTooLarge:
            return "pattern too large: it compiles to more than " +
                   std::to_string(Pattern::kMaxMemoryBytes >> 20) +
                   " MiB (lower its repeat counts or shorten it)";
        default:  // to_re2_syntax writes only what RE2 accepts: the fuzz target checks
            return "pattern not accepted by RE2: " + compiled.error();
    }
}

// Whether next_utf8 reads all of `text` as valid (RE2 does not: it matches nothing, not
// even `.`, on a byte that is not part of a valid sequence).
bool is_utf8(std::string_view text) {
    for (std::size_t at = 0; at < text.size();) {
        if (static_cast<unsigned char>(text[at]) < 0x80) {
            ++at;
            continue;
        }
        const Utf8Char c = next_utf8(text, at);
        if (!c.valid) return false;
        at += c.length;
    }
    return true;
}

// `text` with each byte that is not part of valid UTF-8 replaced by U+FFFD, which `.`
// and negated classes match, as they matched such a byte before RE2.
std::string with_replacement_characters(std::string_view text) {
    std::string replaced;
    replaced.reserve(text.size() + 16);
    for (std::size_t at = 0; at < text.size();) {
        const Utf8Char c = next_utf8(text, at);
        if (c.valid) {
            replaced.append(text.substr(at, c.length));
        } else {
            replaced.append("\xef\xbf\xbd");
        }
        at += c.length;
    }
    return replaced;
}

}  // namespace

Pattern::Pattern(std::string source, std::shared_ptr<const re2::RE2> compiled)
    : source_(std::move(source)), compiled_(std::move(compiled)) {}
Pattern::Pattern(Pattern&&) noexcept = default;
Pattern& Pattern::operator=(Pattern&&) noexcept = default;
Pattern::Pattern(const Pattern&) = default;
Pattern& Pattern::operator=(const Pattern&) = default;
Pattern::~Pattern() = default;

Result<Pattern> Pattern::compile(std::string_view pattern) {
    if (pattern.size() > kMaxLength) {
        return fail("pattern too long: " + std::to_string(pattern.size()) + " bytes, at most " +
                    std::to_string(kMaxLength));
    }
    auto syntax = to_re2_syntax(pattern);
    if (!syntax) return std::unexpected(syntax.error());
    re2::RE2::Options options;
    options.set_encoding(re2::RE2::Options::EncodingUTF8);
    options.set_case_sensitive(!syntax->ignore_case);
    options.set_max_mem(kMaxMemoryBytes);
    options.set_never_capture(true);  // only whether it matches is asked
    options.set_log_errors(false);    // refusals are returned, never printed
    auto compiled = std::make_shared<const re2::RE2>(syntax->pattern, options);
    if (!compiled->ok()) return fail(refusal(*compiled));
    return Pattern(std::string(pattern), std::move(compiled));
}

bool Pattern::search(std::string_view text) const {
    if (is_utf8(text)) return re2::RE2::PartialMatch(text, *compiled_);
    return re2::RE2::PartialMatch(with_replacement_characters(text), *compiled_);
}

bool search_process(const Pattern& pattern, const ProcessInfo& info) {
    if (pattern.search(info.comm)) return true;
    std::string joined;
    for (const std::string& argument : info.cmdline) {
        if (!joined.empty()) joined.push_back(' ');
        joined += argument;
        if (joined.size() >= kMaxCommandLineSearched) {
            joined.resize(kMaxCommandLineSearched);
            break;
        }
    }
    return pattern.search(joined);
}

}  // namespace gpukill

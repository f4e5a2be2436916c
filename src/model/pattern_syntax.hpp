// gpukill's pattern syntax (docs/PATTERNS.md: a subset of ECMAScript's, so that patterns
// written for gpu-kill keep their meaning) read, checked, and written out in RE2's syntax
// for Pattern (pattern.hpp) to compile.
//
// Why a translation rather than RE2's own parser: the two syntaxes agree on most
// patterns, but where they disagree RE2 accepts silently with another meaning. A count
// RE2 cannot read makes its `{` an ordinary character, so `x{4294967296}` and `a{01}` are
// literal text to it (here: refused, and one repeat); `[]a]` is a class of `]` and `a`
// (ECMAScript: a class that matches nothing, then `a]`); `\s` leaves out \v and U+00A0;
// `\u00e9` is an error. So the documented syntax is read here, what it does not accept
// is refused with the reason and the offset, and every character and class is written
// out explicitly (`\x{...}`, ranges): RE2 is left nothing to read differently. The
// matching, and the limits on what a pattern may cost, are RE2's.
#pragma once

#include <string>
#include <string_view>

#include "model/result.hpp"

namespace gpukill {

struct Re2Syntax {
    std::string pattern;       // RE2's syntax, ASCII only
    bool ignore_case = false;  // the pattern began with (?i)
};

// Errors (invalid_input) name what is wrong and where: "repeat count 4294967296 at
// offset 2 exceeds 1000", "back-references are not supported at offset 3".
Result<Re2Syntax> to_re2_syntax(std::string_view pattern);

}  // namespace gpukill

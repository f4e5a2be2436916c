// The one regular-expression engine of gpukill: every pattern a user gives (--filter,
// --image, --not-image, audit --process, guard rules' `pattern`) is compiled and searched
// here, through RE2.
//
// Why not std::regex: libstdc++'s engine backtracks (a 28-character command line took
// over a minute on `(a|a)*$x`) and reads a repeat count that overflows (`x{4294967296}`)
// as one that matches everything, so a selector meant to pick a few processes picked
// every GPU holder. RE2 searches in time linear in the text (automata, no backtracking)
// within a memory budget; a pattern is read in gpukill's documented syntax
// (pattern_syntax.hpp) and compiled exactly as written, or refused with the reason.
//
// Accepted syntax (a subset of ECMAScript's, documented in docs/PATTERNS.md):
//   literals, `.` (any character), `^` `$` (start and end of the text), `|`, `( )`,
//   `(?: )`, a leading `(?i)` (case-insensitive), `* + ?`, `{n}` `{n,}` `{n,m}` with
//   counts up to kMaxRepeat (a trailing `?` for laziness is accepted: it cannot change
//   whether a text matches), bracket classes `[a-z]` `[^...]` with `[:alpha:]` and the
//   other POSIX names inside, and the escapes \d \D \w \W \s \S \b \B \t \n \r \f \v
//   \xHH \uHHHH and any escaped punctuation.
//   Refused with a reason: back-references, look-around, named groups, a quantifier
//   with nothing to repeat, a `{` that does not start a well-formed quantifier, counts
//   above kMaxRepeat, nested repeats whose counts multiply past kMaxRepeat, patterns
//   longer than kMaxLength bytes or not UTF-8, and patterns whose compiled form needs
//   more than kMaxMemoryBytes.
// Text is read as UTF-8; a byte that is not part of a valid sequence is read as U+FFFD.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "model/process.hpp"
#include "model/result.hpp"

namespace re2 {
class RE2;
}

namespace gpukill {

class Pattern {
  public:
    static constexpr unsigned kMaxRepeat = 1000;
    // Longer than any command line a selector searches (kMaxCommandLineSearched).
    static constexpr std::size_t kMaxLength = 4096;
    // RE2's budget for one compiled pattern: its program (about 87,000 steps at most)
    // and the cache of automaton states that searching builds.
    static constexpr std::int64_t kMaxMemoryBytes = std::int64_t{1} << 20;

    // The pattern compiled exactly as written, or an error (invalid_input) naming what
    // is wrong and where ("repeat count 4294967296 at offset 2 exceeds 1000").
    static Result<Pattern> compile(std::string_view pattern);

    // Whether any part of `text` matches (like std::regex_search).
    bool search(std::string_view text) const;

    const std::string& source() const { return source_; }

    Pattern(Pattern&&) noexcept;
    Pattern& operator=(Pattern&&) noexcept;
    Pattern(const Pattern&);
    Pattern& operator=(const Pattern&);
    ~Pattern();

  private:
    Pattern(std::string source, std::shared_ptr<const re2::RE2> compiled);
    std::string source_;
    // RE2 is safe to search from several threads at once: copies share it.
    std::shared_ptr<const re2::RE2> compiled_;
};

// What every pattern selector searches: the process's name (comm), then its arguments
// joined by single spaces, cut at kMaxCommandLineSearched bytes so that megabytes of
// arguments cannot make one match cost seconds.
inline constexpr std::size_t kMaxCommandLineSearched = 4096;
bool search_process(const Pattern& pattern, const ProcessInfo& info);

}  // namespace gpukill

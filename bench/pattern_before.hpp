// The hand-written regular-expression engine gpukill used before RE2, kept only as the
// pattern benchmark's "before" (bench/pattern_bench.cpp); no product code links it.
// It is src/model/pattern.hpp and pattern.cpp as of commit 17ce2d8, unchanged but for
// this note, its namespace (gpukill::bench::before) and the include of its header.
//
// The one regular-expression engine of gpukill: every pattern a user gives (--filter,
// audit --process, guard rules' `pattern`) is compiled and searched here.
//
// Why not std::regex: libstdc++'s engine backtracks (a 28-character command line took
// over a minute on `(a|a)*$x`) and reads a repeat count that overflows (`x{4294967296}`)
// as one that matches everything, so a selector meant to pick a few processes picked
// every GPU holder. This engine compiles a pattern exactly as written or refuses it, and
// searches in time linear in the text (Thompson NFA simulation: each position of the text
// visits each instruction at most once).
//
// Accepted syntax (a subset of ECMAScript's, documented in docs/PATTERNS.md):
//   literals, `.` (any character), `^` `$` (start and end of the text), `|`, `( )`,
//   `(?: )`, a leading `(?i)` (ASCII case-insensitive), `* + ?`, `{n}` `{n,}` `{n,m}`
//   with counts up to kMaxRepeat (a trailing `?` for laziness is accepted: it cannot
//   change whether a text matches), bracket classes `[a-z]` `[^...]` with `[:alpha:]`
//   and the other POSIX names inside, and the escapes \d \D \w \W \s \S \b \B \t \n \r
//   \f \v \xHH \uHHHH and any escaped punctuation.
//   Refused with a reason: back-references, look-around, named groups, a quantifier
//   with nothing to repeat, a `{` that does not start a well-formed quantifier, counts
//   above kMaxRepeat, and patterns whose compiled form exceeds kMaxInstructions.
// Text is read as UTF-8; a byte that is not part of a valid sequence is one character
// that only `.` and negated classes match.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "model/process.hpp"
#include "model/result.hpp"

namespace gpukill::bench::before {

class Pattern {
  public:
    static constexpr unsigned kMaxRepeat = 1000;
    static constexpr std::size_t kMaxInstructions = 20000;

    // The pattern compiled exactly as written, or an error naming what is wrong and
    // where ("repeat count 4294967296 at offset 2 exceeds 1000").
    static Result<Pattern> compile(std::string_view pattern);

    // Whether any part of `text` matches (like std::regex_search).
    bool search(std::string_view text) const;

    const std::string& source() const { return source_; }

    Pattern(Pattern&&) noexcept;
    Pattern& operator=(Pattern&&) noexcept;
    Pattern(const Pattern&);
    Pattern& operator=(const Pattern&);
    ~Pattern();

    struct Program;

  private:
    Pattern(std::string source, std::shared_ptr<const Program> program);
    std::string source_;
    std::shared_ptr<const Program> program_;  // immutable once compiled: copies share it
};

// What every pattern selector searches: the process's name (comm), then its arguments
// joined by single spaces, cut at kMaxCommandLineSearched bytes so that megabytes of
// arguments cannot make one match cost seconds.
inline constexpr std::size_t kMaxCommandLineSearched = 4096;
bool search_process(const Pattern& pattern, const ProcessInfo& info);

}  // namespace gpukill::bench::before

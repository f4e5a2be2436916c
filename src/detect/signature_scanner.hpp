// Which of a set of signatures occur in a stream of bytes, fed in chunks of any size: a
// signature split across two chunks is found as if the bytes had come in one piece.
// ASCII letters compare case-insensitively ("XMRig" is "xmrig"). Pure.
//
// One pass, one table lookup per byte whatever the number of signatures (an Aho-Corasick
// automaton compiled to a full transition table), so reading a large executable costs
// the same as reading it, never signatures x bytes.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpukill::detect {

class SignatureScanner {
  public:
    // Empty signatures are ignored.
    explicit SignatureScanner(const std::vector<std::string>& signatures);

    void feed(std::string_view bytes);
    // Forgets what was fed, to scan another stream with the same signatures.
    void restart();

    // The signatures seen so far, each once, in the order they were given.
    std::vector<std::string> found() const;
    std::uint64_t bytes_fed() const { return bytes_fed_; }

  private:
    using Row = std::array<std::uint32_t, 256>;
    std::vector<std::string> signatures_;
    std::vector<Row> next_;                           // by state, then byte
    std::vector<std::vector<std::uint32_t>> ending_;  // signatures ending in each state
    // The hot loop's view: next_ flattened (state * 256 + byte), and whether any
    // signature ends in a state, so that most bytes cost one lookup and one test.
    std::vector<std::uint32_t> table_;
    std::vector<std::uint8_t> accepting_;
    std::vector<bool> seen_;
    std::uint32_t state_ = 0;
    std::uint64_t bytes_fed_ = 0;
};

}  // namespace gpukill::detect

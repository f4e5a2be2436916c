// Pattern: the first line is a pattern, the rest a text to search. Every compiled
// pattern must search any text without crashing, in bounded time; and every refusal
// must be gpukill's own reading of the pattern (pattern_syntax.hpp) or one of RE2's
// limits, never RE2 refusing what the translation wrote: that would be a pattern the
// documented syntax accepts and gpukill does not.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "model/pattern.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const std::size_t newline = input.find('\n');
    const std::string_view pattern = input.substr(0, newline);
    const std::string_view text =
        newline == std::string_view::npos ? std::string_view() : input.substr(newline + 1);
    auto compiled = gpukill::Pattern::compile(pattern);
    if (compiled) {
        (void)compiled->search(text);
    } else if (compiled.error().what.starts_with("pattern not accepted by RE2")) {
        std::fprintf(stderr, "%s\n", compiled.error().what.c_str());
        std::abort();
    }
    return 0;
}

// Pattern: the first line is a pattern, the rest a text to search. Every compiled
// pattern must search any text without crashing, in bounded time.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "model/pattern.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const std::size_t newline = input.find('\n');
    const std::string_view pattern = input.substr(0, newline);
    const std::string_view text =
        newline == std::string_view::npos ? std::string_view() : input.substr(newline + 1);
    if (auto compiled = gpukill::Pattern::compile(pattern)) (void)compiled->search(text);
    return 0;
}

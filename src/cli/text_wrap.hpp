// Fitting text to a terminal's width: wrapping prose at spaces, cutting a cell with an
// ellipsis. Widths count code points (UTF-8 lead bytes): the tool's own text is
// narrow, and outside text is made printable before it gets here. Pure.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpukill::cli {

// No limit: output to a pipe or a file, or --wide.
using OutputWidth = std::optional<std::size_t>;

std::size_t display_width(std::string_view text);

// The display width of the widest line of `text`.
std::size_t widest_line(std::string_view text);

// `text` in lines of at most `width` columns, broken at spaces; a word longer than a
// line is broken where it must be.
std::vector<std::string> wrap_words(std::string_view text, std::size_t width);

// `text` itself when it fits, else its first width-1 columns and "…".
std::string cut_to_width(std::string_view text, std::size_t width);

// Every line of `text` wider than `width` wrapped, its continuation lines indented
// two columns more than the line itself; unchanged without a width.
std::string fit_to_width(std::string_view text, OutputWidth width);

}  // namespace gpukill::cli

#include "cli/text_table.hpp"

#include "model/human_format.hpp"

#include <algorithm>

namespace gpukill::cli {
namespace {

// Display width: count UTF-8 lead bytes so "°" occupies one column.
std::size_t display_width(const std::string& text) {
    return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
}

}  // namespace

TextTable::TextTable(std::vector<std::string> headers, std::vector<bool> right_aligned)
    : headers_(std::move(headers)), right_aligned_(std::move(right_aligned)) {
    right_aligned_.resize(headers_.size(), false);
}

void TextTable::add_row(std::vector<std::string> cells) {
    cells.resize(headers_.size());
    for (std::string& cell : cells) cell = printable(cell);
    rows_.push_back(std::move(cells));
}

std::string TextTable::render(std::size_t indent) const {
    std::vector<std::size_t> widths(headers_.size());
    for (std::size_t c = 0; c < headers_.size(); ++c) widths[c] = display_width(headers_[c]);
    for (const auto& row : rows_) {
        for (std::size_t c = 0; c < row.size(); ++c) {
            widths[c] = std::max(widths[c], display_width(row[c]));
        }
    }
    std::string out;
    auto emit = [&](const std::vector<std::string>& cells) {
        std::string line(indent, ' ');
        for (std::size_t c = 0; c < cells.size(); ++c) {
            std::size_t pad = widths[c] - display_width(cells[c]);
            if (c > 0) line += "  ";
            if (right_aligned_[c]) line.append(pad, ' ');
            line += cells[c];
            if (!right_aligned_[c]) line.append(pad, ' ');
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line;
        out += '\n';
    };
    emit(headers_);
    for (const auto& row : rows_) emit(row);
    return out;
}

}  // namespace gpukill::cli

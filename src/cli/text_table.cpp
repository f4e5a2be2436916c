#include "cli/text_table.hpp"

#include "model/human_format.hpp"

#include <algorithm>

namespace gpukill::cli {

TextTable::TextTable(std::vector<std::string> headers, std::vector<bool> right_aligned)
    : headers_(std::move(headers)), right_aligned_(std::move(right_aligned)) {
    right_aligned_.resize(headers_.size(), false);
}

void TextTable::add_row(std::vector<std::string> cells) {
    cells.resize(headers_.size());
    for (std::string& cell : cells) cell = printable(cell);
    rows_.push_back(std::move(cells));
}

void TextTable::drop_when_narrow(const std::string& header) {
    auto found = std::find(headers_.begin(), headers_.end(), header);
    if (found != headers_.end()) {
        droppable_.push_back(static_cast<std::size_t>(found - headers_.begin()));
    }
}

std::string TextTable::render(std::size_t indent, OutputWidth width) const {
    if (headers_.empty()) return {};
    std::vector<std::size_t> widths(headers_.size());
    for (std::size_t c = 0; c < headers_.size(); ++c) widths[c] = display_width(headers_[c]);
    for (const auto& row : rows_) {
        for (std::size_t c = 0; c < row.size(); ++c) {
            widths[c] = std::max(widths[c], display_width(row[c]));
        }
    }
    const std::size_t last = headers_.size() - 1;
    std::vector<bool> shown(headers_.size(), true);
    const auto natural_width = [&] {
        std::size_t total = indent;
        bool first = true;
        for (std::size_t c = 0; c < widths.size(); ++c) {
            if (!shown[c]) continue;
            total += widths[c] + (first ? 0 : 2);
            first = false;
        }
        return total;
    };
    constexpr std::size_t kLastColumnFloor = 8;
    if (width && natural_width() > *width) {
        for (std::size_t column : droppable_) {
            const std::size_t last_width = widths[last];
            widths[last] = std::min(last_width, kLastColumnFloor);
            const bool fits = natural_width() <= *width;
            widths[last] = last_width;
            if (fits) break;
            shown[column] = false;
        }
        const std::size_t excess = natural_width() > *width ? natural_width() - *width : 0;
        widths[last] = widths[last] > kLastColumnFloor + excess
                           ? widths[last] - excess
                           : std::min(widths[last], kLastColumnFloor);
    }
    std::string out;
    auto emit = [&](std::vector<std::string> cells) {
        if (width) cells[last] = cut_to_width(cells[last], widths[last]);
        std::string line(indent, ' ');
        bool first = true;
        for (std::size_t c = 0; c < cells.size(); ++c) {
            if (!shown[c]) continue;
            std::size_t pad = widths[c] - display_width(cells[c]);
            if (!first) line += "  ";
            first = false;
            if (right_aligned_[c]) line.append(pad, ' ');
            line += cells[c];
            if (!right_aligned_[c]) line.append(pad, ' ');
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += width ? cut_to_width(line, *width) : line;
        out += '\n';
    };
    emit(headers_);
    for (const auto& row : rows_) emit(row);
    return out;
}

}  // namespace gpukill::cli

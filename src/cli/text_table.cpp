#include "cli/text_table.hpp"

#include "model/human_format.hpp"

#include <algorithm>

namespace gpukill::cli {

TextTable::TextTable(std::vector<std::string> headers, std::vector<bool> right_aligned)
    : headers_(std::move(headers)), right_aligned_(std::move(right_aligned)) {
    right_aligned_.resize(headers_.size(), false);
}

void TextTable::add_row(std::vector<std::string> cells) {
    add_row(std::move(cells), {});
}

void TextTable::add_row(std::vector<std::string> cells, std::vector<std::string> shorter_last) {
    cells.resize(headers_.size());
    for (std::string& cell : cells) cell = printable(cell);
    for (std::string& form : shorter_last) form = printable(form);
    rows_.push_back(std::move(cells));
    shorter_last_.push_back(std::move(shorter_last));
}

namespace {

// The first of `full` and its shorter forms that fits `width`, else the last one cut.
std::string fitted_last_cell(const std::string& full, const std::vector<std::string>& shorter,
                             std::size_t width) {
    if (display_width(full) <= width) return full;
    for (const std::string& form : shorter) {
        if (display_width(form) <= width) return form;
    }
    return cut_to_width(shorter.empty() ? full : shorter.back(), width);
}

bool without_values(const std::vector<std::vector<std::string>>& rows, std::size_t column) {
    return std::all_of(rows.begin(), rows.end(), [&](const std::vector<std::string>& row) {
        return row[column].empty() || row[column] == "-";
    });
}

}  // namespace

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
    // The last column keeps at least 8 columns, and room for every row's shortest form.
    std::size_t last_floor = 8;
    for (const auto& shorter : shorter_last_) {
        if (!shorter.empty()) {
            last_floor = std::max(last_floor, display_width(shorter.back()));
        }
    }
    if (width && natural_width() > *width) {
        // A column that says nothing in any row gives its room to the others first.
        for (std::size_t column : droppable_) {
            if (!rows_.empty() && without_values(rows_, column)) shown[column] = false;
        }
        for (std::size_t column : droppable_) {
            if (!shown[column]) continue;
            const std::size_t last_width = widths[last];
            widths[last] = std::min(last_width, last_floor);
            const bool fits = natural_width() <= *width;
            widths[last] = last_width;
            if (fits) break;
            shown[column] = false;
        }
        const std::size_t excess = natural_width() > *width ? natural_width() - *width : 0;
        widths[last] = widths[last] > last_floor + excess ? widths[last] - excess
                                                          : std::min(widths[last], last_floor);
    }
    std::string out;
    auto emit = [&](std::vector<std::string> cells, const std::vector<std::string>& shorter) {
        if (width) cells[last] = fitted_last_cell(cells[last], shorter, widths[last]);
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
    emit(headers_, {});
    for (std::size_t r = 0; r < rows_.size(); ++r) emit(rows_[r], shorter_last_[r]);
    return out;
}

}  // namespace gpukill::cli

// Column-aligned plain-text tables. Columns size to their widest cell; cells
// marked right-aligned are padded on the left (numbers). Given a width, the last
// column (COMMAND, WHY: the one free text) is cut with an ellipsis so rows fit, and a
// row that still does not fit is cut at the width. Columns marked droppable go first:
// those with no value in any row ("-" or empty) at once, then the others in the order
// marked while the last column would have to shrink below 8 columns. A row may give
// shorter forms of its last cell, tried before it is cut (a process's PID kept whole).
#pragma once

#include <string>
#include <vector>

#include "cli/text_wrap.hpp"

namespace gpukill::cli {

class TextTable {
  public:
    explicit TextTable(std::vector<std::string> headers, std::vector<bool> right_aligned = {});
    void add_row(std::vector<std::string> cells);
    // `shorter_last`: forms of the last cell, each shorter than the one before, the first
    // that fits the column used before the last of them is cut.
    void add_row(std::vector<std::string> cells, std::vector<std::string> shorter_last);
    // `column` (by header) may be left out at a width too narrow for every column.
    void drop_when_narrow(const std::string& header);
    // Rendered lines, each indented by `indent` spaces, trailing spaces trimmed.
    std::string render(std::size_t indent = 0, OutputWidth width = std::nullopt) const;
    bool empty() const { return rows_.empty(); }

  private:
    std::vector<std::string> headers_;
    std::vector<bool> right_aligned_;
    std::vector<std::vector<std::string>> rows_;
    std::vector<std::vector<std::string>> shorter_last_;  // per row
    std::vector<std::size_t> droppable_;
};

}  // namespace gpukill::cli

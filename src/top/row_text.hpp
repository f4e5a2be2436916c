// One process-panel row as text, fitted to the terminal (pure): the tag and flag marks
// ('*' tagged; 'H' a hidden holder the driver does not list, 'O' an orphan, 'U' memory
// nobody accounts for), then the columns that fit, the command taking what is left.
#pragma once

#include <string>
#include <vector>

#include "top/rows.hpp"
#include "top/view.hpp"

namespace gpukill::top {

// The header: column titles, the sorted one marked with 'v' (high first) or '^'.
std::string header_text(const std::vector<Column>& columns, int width, const ViewState& view);
std::string row_text(const Row& row, const std::vector<Column>& columns, int width, bool tagged);
// The text of one cell (tree indentation in the command for depth > 0).
std::string cell_text(const Row& row, Column column);

}  // namespace gpukill::top

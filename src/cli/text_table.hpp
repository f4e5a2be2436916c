// Column-aligned plain-text tables. Columns size to their widest cell; cells
// marked right-aligned are padded on the left (numbers).
#pragma once

#include <string>
#include <vector>

namespace gpukill::cli {

class TextTable {
  public:
    explicit TextTable(std::vector<std::string> headers, std::vector<bool> right_aligned = {});
    void add_row(std::vector<std::string> cells);
    // Rendered lines, each indented by `indent` spaces, trailing spaces trimmed.
    std::string render(std::size_t indent = 0) const;
    bool empty() const { return rows_.empty(); }

  private:
    std::vector<std::string> headers_;
    std::vector<bool> right_aligned_;
    std::vector<std::vector<std::string>> rows_;
};

}  // namespace gpukill::cli

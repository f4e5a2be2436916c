#include "top/row_text.hpp"

#include <fmt/format.h>

#include "model/human_format.hpp"

namespace gpukill::top {
namespace {

std::string row_cell(std::string text, int width, bool right) {
    if (width <= 0) return text;
    const auto w = static_cast<std::size_t>(width);
    if (text.size() > w) {
        text.resize(w);
        if (w > 1) text.back() = '+';  // cut: the whole value is in the detail view
    }
    return right ? std::string(w - text.size(), ' ') + text
                 : text + std::string(w - text.size(), ' ');
}

std::string row_line(const std::vector<std::string>& cells, const std::vector<Column>& columns,
                     int width, std::string marks) {
    std::string line = std::move(marks);
    for (std::size_t i = 0; i < columns.size(); ++i) {
        const ColumnInfo& info = column_info(columns[i]);
        if (info.width == 0) {
            const int left = width - static_cast<int>(line.size());
            line += row_cell(cells[i], std::max(0, left), false);
        } else {
            line += row_cell(cells[i], info.width, info.right_aligned) + " ";
        }
    }
    if (static_cast<int>(line.size()) > width)
        line.resize(static_cast<std::size_t>(std::max(0, width)));
    return line;
}

}  // namespace

std::string cell_text(const Row& row, Column column) {
    const bool process = row.kind == RowKind::process;
    switch (column) {
        case Column::gpu:
            return std::to_string(row.gpu);
        case Column::pid:
            return process ? std::to_string(row.identity.pid) : "-";
        case Column::user:
            return row.user;
        case Column::gpu_memory:
            return row.gpu_memory_bytes ? format_bytes(*row.gpu_memory_bytes) : "-";
        case Column::gpu_util:
            return row.gpu_utilization_percent ? fmt::format("{}%", *row.gpu_utilization_percent)
                                               : "-";
        case Column::cpu:
            return row.cpu_percent ? fmt::format("{:.1f}", *row.cpu_percent) : "-";
        case Column::host_memory:
            return row.host_memory_bytes ? format_bytes(*row.host_memory_bytes) : "-";
        case Column::time:
            return row.running_seconds ? format_duration(*row.running_seconds) : "-";
        case Column::container:
            return row.container.empty() ? "-" : row.container;
        case Column::seen_by:
            return row.seen_by;
        case Column::name:
            return row.name;
        case Column::command: {
            std::string prefix;
            if (row.depth > 0) {
                prefix = std::string(static_cast<std::size_t>(2 * (row.depth - 1)), ' ') + "`- ";
            }
            if (row.orphaned && process) prefix += "(orphan) ";
            // NAME is the first column a narrow screen drops: the command says it too.
            if (!process) prefix += row.name + " ";
            return prefix + row.command;
        }
    }
    return "";
}

std::string header_text(const std::vector<Column>& columns, int width, const ViewState& view) {
    std::vector<std::string> cells;
    const bool descending = [&] {
        switch (view.sort) {
            case Column::gpu_memory:
            case Column::gpu_util:
            case Column::cpu:
            case Column::host_memory:
            case Column::time:
                return !view.reverse;
            default:
                return view.reverse;
        }
    }();
    for (Column column : columns) {
        std::string title = column_info(column).title;
        if (column == view.sort) title += descending ? "v" : "^";
        cells.push_back(std::move(title));
    }
    return row_line(cells, columns, width, "   ");
}

std::string row_text(const Row& row, const std::vector<Column>& columns, int width, bool tagged) {
    std::vector<std::string> cells;
    for (Column column : columns) cells.push_back(cell_text(row, column));
    char flag = ' ';
    if (row.kind == RowKind::unaccounted) {
        flag = 'U';
    } else if (row.observer) {
        flag = 'o';
    } else if (row.hidden) {
        flag = 'H';
    } else if (row.orphaned) {
        flag = 'O';
    }
    return row_line(cells, columns, width, std::string{tagged ? '*' : ' ', flag, ' '});
}

}  // namespace gpukill::top

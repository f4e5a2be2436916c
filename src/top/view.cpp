#include "top/view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

namespace gpukill::top {
namespace {

int view_compare_text(const std::string& a, const std::string& b) {
    return a < b ? -1 : (b < a ? 1 : 0);
}

template <class T>
int view_compare_optional(const std::optional<T>& a, const std::optional<T>& b) {
    if (!a && !b) return 0;
    if (!a) return -1;  // unknown sorts as the lowest value
    if (!b) return 1;
    return *a < *b ? -1 : (*b < *a ? 1 : 0);
}

// Ascending comparison on one column.
int view_compare(Column column, const Row& a, const Row& b) {
    switch (column) {
        case Column::gpu:
            return a.gpu < b.gpu ? -1 : (b.gpu < a.gpu ? 1 : 0);
        case Column::pid:
            return a.identity.pid < b.identity.pid ? -1 : (b.identity.pid < a.identity.pid ? 1 : 0);
        case Column::user:
            return view_compare_text(a.user, b.user);
        case Column::gpu_memory:
            return view_compare_optional(a.gpu_memory_bytes, b.gpu_memory_bytes);
        case Column::gpu_util:
            return view_compare_optional(a.gpu_utilization_percent, b.gpu_utilization_percent);
        case Column::cpu:
            return view_compare_optional(a.cpu_percent, b.cpu_percent);
        case Column::host_memory:
            return view_compare_optional(a.host_memory_bytes, b.host_memory_bytes);
        case Column::time:
            return view_compare_optional(a.running_seconds, b.running_seconds);
        case Column::container:
            return view_compare_text(a.container, b.container);
        case Column::seen_by:
            return view_compare_text(a.seen_by, b.seen_by);
        case Column::name:
            return view_compare_text(a.name, b.name);
        case Column::command:
            return view_compare_text(a.command, b.command);
    }
    return 0;
}

// Quantities read best largest first; names, PIDs and GPUs in their natural order.
bool view_descending_by_default(Column column) {
    switch (column) {
        case Column::gpu_memory:
        case Column::gpu_util:
        case Column::cpu:
        case Column::host_memory:
        case Column::time:
            return true;
        default:
            return false;
    }
}

struct ViewOrder {
    Column column;
    bool descending;
    bool operator()(const Row& a, const Row& b) const {
        int c = view_compare(column, a, b);
        if (descending) c = -c;
        if (c != 0) return c < 0;
        // Ties: GPU, then PID, so the order never flickers between refreshes.
        if (a.gpu != b.gpu) return a.gpu < b.gpu;
        if (a.kind != b.kind) return a.kind == RowKind::process;
        return a.identity.pid < b.identity.pid;
    }
};

ViewOrder view_order(const ViewState& view) {
    return {view.sort, view_descending_by_default(view.sort) != view.reverse};
}

std::string view_lower(std::string_view text) {
    std::string lower(text);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return lower;
}

void view_tree_walk(pid_t pid, int depth, const std::map<pid_t, std::vector<Row>>& by_pid,
                    const std::map<pid_t, std::vector<pid_t>>& children, std::set<pid_t>& done,
                    std::vector<Row>& out) {
    if (!done.insert(pid).second) return;
    for (Row row : by_pid.at(pid)) {
        row.depth = depth;
        out.push_back(std::move(row));
    }
    if (auto kids = children.find(pid); kids != children.end()) {
        for (pid_t child : kids->second)
            view_tree_walk(child, depth + 1, by_pid, children, done, out);
    }
}

std::vector<Row> view_tree_order(std::vector<Row> rows, const ViewOrder& order) {
    std::stable_sort(rows.begin(), rows.end(), order);
    std::map<pid_t, std::vector<Row>> by_pid;  // process rows, in sorted order
    std::vector<pid_t> pids_in_order;
    for (const Row& row : rows) {
        if (row.kind != RowKind::process) continue;
        auto& list = by_pid[row.identity.pid];
        if (list.empty()) pids_in_order.push_back(row.identity.pid);
        list.push_back(row);
    }
    std::map<pid_t, std::vector<pid_t>> children;
    std::vector<pid_t> roots;
    for (pid_t pid : pids_in_order) {
        const pid_t parent = by_pid[pid].front().ppid;
        if (parent != pid && by_pid.count(parent) != 0) {
            children[parent].push_back(pid);
        } else {
            roots.push_back(pid);
        }
    }
    std::vector<Row> out;
    std::set<pid_t> done;
    std::size_t next_unaccounted = 0;
    std::vector<Row> unaccounted;
    for (const Row& row : rows) {
        if (row.kind == RowKind::unaccounted) unaccounted.push_back(row);
    }
    for (pid_t root : roots) view_tree_walk(root, 0, by_pid, children, done, out);
    // A parent cycle (impossible in /proc, possible in a fixture) leaves processes
    // unvisited: they are shown as roots rather than lost.
    for (pid_t pid : pids_in_order) view_tree_walk(pid, 0, by_pid, children, done, out);
    for (; next_unaccounted < unaccounted.size(); ++next_unaccounted) {
        out.push_back(unaccounted[next_unaccounted]);
    }
    return out;
}

}  // namespace

const std::vector<ColumnInfo>& all_columns() {
    static const std::vector<ColumnInfo> columns = {
        {Column::gpu, "GPU", 3, true, 'g', 99},
        {Column::pid, "PID", 7, true, 'p', 99},
        {Column::user, "USER", 8, false, 'u', 99},
        {Column::gpu_memory, "GPU-MEM", 8, true, 'm', 99},
        {Column::gpu_util, "GPU%", 4, true, 'l', 5},
        {Column::cpu, "CPU%", 5, true, 'c', 6},
        {Column::host_memory, "HOST-MEM", 8, true, 'r', 3},
        {Column::time, "TIME", 8, true, 't', 2},
        {Column::container, "CONTAINER", 19, false, 'k', 1},
        {Column::seen_by, "SEEN BY", 11, false, 's', 99},
        {Column::name, "NAME", 12, false, 'n', 4},
        {Column::command, "COMMAND", 0, false, 'a', 99},
    };
    return columns;
}

const ColumnInfo& column_info(Column column) {
    return *std::find_if(all_columns().begin(), all_columns().end(),
                         [&](const ColumnInfo& info) { return info.column == column; });
}

std::vector<Column> columns_for_width(int width) {
    constexpr int kMarks = 3;        // tag and flag, then a space
    constexpr int kMinCommand = 16;  // narrower, and the command says nothing
    std::vector<ColumnInfo> kept = all_columns();
    auto fixed = [&] {
        int total = kMarks;
        for (const ColumnInfo& info : kept) total += info.width == 0 ? 0 : info.width + 1;
        return total;
    };
    while (fixed() + kMinCommand > width) {
        auto lowest = std::min_element(
            kept.begin(), kept.end(),
            [](const ColumnInfo& a, const ColumnInfo& b) { return a.keep < b.keep; });
        if (lowest == kept.end() || lowest->keep >= 99) break;
        kept.erase(lowest);
    }
    std::vector<Column> columns;
    for (const ColumnInfo& info : kept) columns.push_back(info.column);
    return columns;
}

const std::vector<Column>& sort_columns() {
    static const std::vector<Column> columns = [] {
        std::vector<Column> all;
        for (const ColumnInfo& info : all_columns()) all.push_back(info.column);
        return all;
    }();
    return columns;
}

std::optional<Column> column_for_sort_key(char key) {
    for (const ColumnInfo& info : all_columns()) {
        if (info.sort_key == key) return info.column;
    }
    return std::nullopt;
}

bool matches_filter(const Row& row, std::string_view filter) {
    if (filter.empty()) return true;
    const std::string needle = view_lower(filter);
    const std::string pid = row.kind == RowKind::process ? std::to_string(row.identity.pid) : "";
    for (const std::string* field : {&row.name, &row.command, &row.user, &pid, &row.container}) {
        if (view_lower(*field).find(needle) != std::string::npos) return true;
    }
    return false;
}

Tag tag_of(const Row& row) {
    return {row.identity.pid, row.identity.start_time_ticks};
}

bool is_tagged(const ViewState& view, const Row& row) {
    return row.kind == RowKind::process && view.tags.count(tag_of(row)) != 0;
}

std::vector<Row> visible_rows(const std::vector<Row>& rows, const ViewState& view) {
    std::vector<Row> shown;
    for (const Row& row : rows) {
        if (view.gpu && row.gpu != *view.gpu) continue;
        if (!matches_filter(row, view.filter)) continue;
        shown.push_back(row);
    }
    const ViewOrder order = view_order(view);
    if (view.tree) return view_tree_order(std::move(shown), order);
    std::stable_sort(shown.begin(), shown.end(), order);
    return shown;
}

void place_cursor(ViewState& view, const std::vector<Row>& visible, std::size_t index) {
    if (visible.empty()) {
        view.cursor = 0;
        view.cursor_identity.reset();
        return;
    }
    view.cursor = std::min(index, visible.size() - 1);
    view.cursor_identity = tag_of(visible[view.cursor]);
    view.cursor_gpu = visible[view.cursor].gpu;
}

void settle(ViewState& view, const std::vector<Row>& all, const std::vector<Row>& visible) {
    std::erase_if(view.tags, [&](const Tag& tag) {
        return std::none_of(all.begin(), all.end(), [&](const Row& row) {
            return row.kind == RowKind::process && tag_of(row) == tag;
        });
    });
    if (view.cursor_identity) {
        for (std::size_t i = 0; i < visible.size(); ++i) {
            if (tag_of(visible[i]) == *view.cursor_identity && visible[i].gpu == view.cursor_gpu) {
                view.cursor = i;
                return;
            }
        }
    }
    place_cursor(view, visible, view.cursor);
}

void move_cursor(ViewState& view, const std::vector<Row>& visible, long delta) {
    if (visible.empty()) return place_cursor(view, visible, 0);
    const long last = static_cast<long>(visible.size()) - 1;
    const long target = std::clamp(static_cast<long>(view.cursor) + delta, 0L, last);
    place_cursor(view, visible, static_cast<std::size_t>(target));
}

std::optional<std::string> toggle_tag(ViewState& view, const std::vector<Row>& visible) {
    if (visible.empty() || view.cursor >= visible.size()) return "no process highlighted";
    const Row& row = visible[view.cursor];
    if (row.kind != RowKind::process) return "memory nobody accounts for cannot be tagged";
    if (!row.actionable) return row.not_actionable_reason;
    const Tag tag = tag_of(row);
    if (!view.tags.erase(tag)) view.tags.insert(tag);
    return std::nullopt;
}

ActionTargets action_targets(const ViewState& view, const std::vector<Row>& all,
                             const std::vector<Row>& visible) {
    ActionTargets targets;
    std::map<pid_t, Row> chosen;
    if (!view.tags.empty()) {
        for (const Row& row : all) {
            if (is_tagged(view, row) && chosen.count(row.identity.pid) == 0) {
                chosen.emplace(row.identity.pid, row);
            }
        }
    } else if (view.cursor < visible.size()) {
        const Row& row = visible[view.cursor];
        if (row.kind == RowKind::process) {
            chosen.emplace(row.identity.pid, row);
        } else {
            targets.refused.push_back(row);
        }
    }
    for (auto& [pid, row] : chosen) {
        (row.actionable ? targets.rows : targets.refused).push_back(row);
    }
    return targets;
}

std::string describe_view(const ViewState& view) {
    const ColumnInfo& info = column_info(view.sort);
    const bool descending = view_descending_by_default(view.sort) != view.reverse;
    std::string text = fmt::format("sort {} {}", info.title, descending ? "v" : "^");
    if (view.tree) text += "  tree";
    if (view.gpu) text += fmt::format("  GPU {} only", *view.gpu);
    if (!view.filter.empty()) text += fmt::format("  filter \"{}\"", view.filter);
    if (!view.tags.empty()) text += fmt::format("  {} tagged", view.tags.size());
    return text;
}

}  // namespace gpukill::top

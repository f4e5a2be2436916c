// What the process panel shows of the rows, and in which order: the filter, the GPU it
// is limited to, the sort column and direction, tree order (parents with their workers
// under them), the tags and the highlighted row. Pure: a key press changes a ViewState,
// visible_rows applies it, and the tests drive both without a terminal.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "top/rows.hpp"

namespace gpukill::top {

enum class Column {
    gpu,
    pid,
    user,
    gpu_memory,
    gpu_util,
    cpu,
    host_memory,
    time,
    container,
    seen_by,
    name,
    command,
};

struct ColumnInfo {
    Column column;
    const char* title;  // as the header shows it
    int width;          // 0: takes what is left (command)
    bool right_aligned;
    char sort_key;  // the letter after `o`
    int keep;       // lower is dropped first on a narrow terminal; 99 never
};

// Every column, in display order.
const std::vector<ColumnInfo>& all_columns();
const ColumnInfo& column_info(Column column);
// The columns that fit `width` characters, in display order; the command takes the rest.
std::vector<Column> columns_for_width(int width);
// The sortable columns, in the order `,` and `.` step through them.
const std::vector<Column>& sort_columns();
std::optional<Column> column_for_sort_key(char key);

using Tag = std::pair<pid_t, std::uint64_t>;  // PID and start time: a reused PID is not tagged

struct ViewState {
    Column sort = Column::gpu_memory;
    bool reverse = false;  // false: the natural order (memory, CPU, time high first)
    std::string filter;    // case-insensitive, in name, command, user, PID, container
    std::optional<unsigned> gpu;
    bool tree = false;
    std::set<Tag> tags;
    // The highlighted row, kept by identity across refreshes.
    std::optional<Tag> cursor_identity;
    unsigned cursor_gpu = 0;
    std::size_t cursor = 0;  // index into the visible rows
};

// Filtered (text, GPU), then sorted, or in tree order: each row's children (rows whose
// parent PID is a shown row's PID) follow it, indented by depth, siblings sorted; rows
// whose parent is not shown are roots. Unaccounted rows stay with the roots.
std::vector<Row> visible_rows(const std::vector<Row>& rows, const ViewState& view);

bool matches_filter(const Row& row, std::string_view filter);
Tag tag_of(const Row& row);
bool is_tagged(const ViewState& view, const Row& row);

// After a refresh: the cursor back on the same process and GPU when it is still shown
// (else clamped), and tags of processes that are gone dropped.
void settle(ViewState& view, const std::vector<Row>& all, const std::vector<Row>& visible);
// Moves the cursor by `delta` rows within `count` (clamped) and remembers its identity.
void move_cursor(ViewState& view, const std::vector<Row>& visible, long delta);
void place_cursor(ViewState& view, const std::vector<Row>& visible, std::size_t index);

// Space: tags or untags the highlighted row's process. Returns why not when it cannot
// be tagged (an unaccounted row; a process this viewer may not act on).
std::optional<std::string> toggle_tag(ViewState& view, const std::vector<Row>& visible);

// What an action applies to: the tagged processes still shown anywhere, else the
// highlighted one; by PID, each once, in PID order. Those the viewer may not act on are
// returned in `refused` with the reason.
struct ActionTargets {
    std::vector<Row> rows;     // one row per process
    std::vector<Row> refused;  // not actionable
};
ActionTargets action_targets(const ViewState& view, const std::vector<Row>& all,
                             const std::vector<Row>& visible);

// "sort: GPU MEM (high first)" etc., for the header.
std::string describe_view(const ViewState& view);

}  // namespace gpukill::top

#include "top/frame.hpp"

#include <algorithm>

#include "top/row_text.hpp"

namespace gpukill::top {
namespace {

std::string frame_fit(std::string text, int width) {
    if (width <= 0) return "";
    if (static_cast<int>(text.size()) > width) text.resize(static_cast<std::size_t>(width));
    return text;
}

Style frame_row_style(const Row& row, bool selected, bool tagged) {
    if (selected) return Style::selected;
    if (tagged) return Style::tagged;
    if ((!row.actionable || row.observer) && row.kind == RowKind::process) return Style::dim;
    if (row.kind == RowKind::unaccounted || row.hidden || row.orphaned) return Style::flagged;
    return Style::normal;
}

// The overlay as a centred box replacing the lines it covers.
void frame_overlay(Frame& frame, const Overlay& overlay, int width, int height) {
    const int box_width = std::max(20, std::min(width - 2, 100));
    const int inner = box_width - 4;
    const int room = std::max(1, height - 6);  // lines of text that fit with the borders
    const std::size_t first =
        std::min(overlay.scroll, overlay.lines.empty() ? 0 : overlay.lines.size() - 1);
    const std::size_t shown = std::min(overlay.lines.size() - std::min(first, overlay.lines.size()),
                                       static_cast<std::size_t>(room));
    const int box_height = static_cast<int>(shown) + 4;
    const int top = std::max(0, (height - box_height) / 2);
    const int left = std::max(0, (width - box_width) / 2);
    const std::string pad(static_cast<std::size_t>(left), ' ');
    auto boxed = [&](const std::string& text) {
        std::string cell = frame_fit(text, inner);
        cell += std::string(static_cast<std::size_t>(inner) - cell.size(), ' ');
        return frame_fit(pad + "| " + cell + " |", width);
    };
    std::string border = "+" + std::string(static_cast<std::size_t>(box_width - 2), '-') + "+";
    std::string title_border = border;
    const std::string title = " " + overlay.title + " ";
    if (static_cast<int>(title.size()) < box_width - 4)
        title_border.replace(2, title.size(), title);
    std::vector<std::string> box;
    box.push_back(frame_fit(pad + title_border, width));
    for (std::size_t i = 0; i < shown; ++i) box.push_back(boxed(overlay.lines[first + i]));
    std::string keys = overlay.keys;
    if (first + shown < overlay.lines.size()) keys += "   (more: arrows)";
    box.push_back(boxed(""));
    box.push_back(boxed(keys));
    box.push_back(frame_fit(pad + border, width));
    for (std::size_t i = 0; i < box.size(); ++i) {
        const std::size_t line = static_cast<std::size_t>(top) + i;
        if (line < frame.lines.size()) frame.lines[line] = {box[i], Style::dialog};
    }
}

// The keys that fit, whole and in order of use: a narrow screen drops the last ones
// rather than cutting one in half ("h help" lists them all).
std::string key_line(bool readonly, int width) {
    static const std::vector<std::string> kReadonly = {"q quit",    "h help",        ",. sort",
                                                       "/ reverse", "t tree",        "f filter",
                                                       "g GPU",     "Enter details", "e env"};
    static const std::vector<std::string> kActing = {
        "q quit", "h help",    ",./ sort",     "t tree",        "f filter",
        "g GPU",  "Space tag", "T/K/I signal", "Enter details", "e env"};
    std::string line;
    for (const std::string& key : readonly ? kReadonly : kActing) {
        const std::string next = line.empty() ? key : line + "  " + key;
        if (static_cast<int>(next.size()) > width) break;
        line = next;
    }
    return line;
}

}  // namespace

std::size_t scroll_for(std::size_t cursor, std::size_t top, std::size_t visible_lines) {
    if (visible_lines == 0) return cursor;
    if (cursor < top) return cursor;
    if (cursor >= top + visible_lines) return cursor - visible_lines + 1;
    return top;
}

Frame build_frame(const ScreenModel& model, int width, int height, std::size_t& top) {
    Frame frame;
    if (height <= 0 || width <= 0) return frame;
    auto add = [&](std::string text, Style style) {
        if (static_cast<int>(frame.lines.size()) < height) {
            frame.lines.push_back({frame_fit(std::move(text), width), style});
        }
    };
    std::string title = model.title;
    if (model.readonly) title += "  [read-only]";
    add(title, Style::title);
    // The GPU panel gets at most half the screen; the process panel the rest.
    const std::size_t gpu_room = static_cast<std::size_t>(std::max(0, height / 2 - 1));
    for (std::size_t i = 0; i < model.gpu_lines.size() && i < gpu_room; ++i) {
        add(model.gpu_lines[i], Style::normal);
    }
    const std::vector<Column> columns = columns_for_width(width);
    static const ViewState kDefaultView;
    const ViewState& view = model.view != nullptr ? *model.view : kDefaultView;
    add(header_text(columns, width, view), Style::header);
    const int footer = 2;
    const int room = std::max(0, height - footer - static_cast<int>(frame.lines.size()));
    static const std::vector<Row> kNoRows;
    const std::vector<Row>& rows = model.rows != nullptr ? *model.rows : kNoRows;
    top = scroll_for(view.cursor, top, static_cast<std::size_t>(room));
    if (top >= rows.size()) top = rows.empty() ? 0 : std::min(top, rows.size() - 1);
    for (int i = 0; i < room; ++i) {
        const std::size_t index = top + static_cast<std::size_t>(i);
        if (index >= rows.size()) {
            add(rows.empty() && i == 0 ? "   (no process holds a GPU)" : "", Style::normal);
            continue;
        }
        const Row& row = rows[index];
        const bool tagged = is_tagged(view, row);
        add(row_text(row, columns, width, tagged),
            frame_row_style(row, index == view.cursor, tagged));
    }
    while (static_cast<int>(frame.lines.size()) < height - footer) add("", Style::normal);
    add(model.status, Style::status);
    add(key_line(model.readonly, width), Style::keys);
    while (static_cast<int>(frame.lines.size()) < height) add("", Style::normal);
    if (model.overlay) frame_overlay(frame, *model.overlay, width, height);
    return frame;
}

std::vector<std::string> help_lines() {
    return {
        "Moving      Up/Down, PgUp/PgDn, Home/End",
        "Sorting     , and . choose the column   / reverses   o + letter sorts by:",
        "            g GPU  p PID  u USER  m GPU-MEM  l GPU%  c CPU%  r HOST-MEM",
        "            t TIME  k CONTAINER  s SEEN BY  n NAME  a COMMAND",
        "Showing     t tree (parents with their workers)   f or \\ filter by text",
        "            g next GPU only / all GPUs",
        "Choosing    Space tags the highlighted process   Esc clears the tags",
        "Acting      T SIGTERM   K SIGKILL   I SIGINT: the tagged processes, else the",
        "            highlighted one, after a confirmation naming each (not --readonly)",
        "            R resets a GPU a kill left soft-locked (preflight first)",
        "Looking     Enter details (GPU files, cgroup, parents, rogue evidence)",
        "            e environment",
        "Marks       * tagged  H hidden holder (the driver does not list it)",
        "            O orphan (its parent died)  U memory nobody accounts for",
        "            o observer: a monitoring client (no context, no memory), dim",
        "            dim: another user's process (only root may signal it)",
        "Leaving     q (or Ctrl-C)",
    };
}

}  // namespace gpukill::top

// One screen of the monitor as lines of text with a style each (pure): the title, the
// GPU panel, the process panel scrolled to the highlighted row, the status and key
// lines, and over them a dialog, the help or a text view. screen.hpp puts a Frame on the
// terminal; tests read Frames without one.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "top/rows.hpp"
#include "top/view.hpp"

namespace gpukill::top {

enum class Style {
    normal,
    title,     // the first line
    header,    // the process panel's column titles
    selected,  // the highlighted row
    tagged,
    dim,      // a process this viewer may not act on
    flagged,  // a hidden holder, an orphan, memory nobody accounts for
    status,
    keys,
    dialog,
};

struct FrameLine {
    std::string text;
    Style style = Style::normal;
    friend bool operator==(const FrameLine&, const FrameLine&) = default;
};

struct Frame {
    std::vector<FrameLine> lines;  // exactly the screen's height, each at most its width
    friend bool operator==(const Frame&, const Frame&) = default;
};

// A box over the panels: a title, its lines, and the keys it answers to.
struct Overlay {
    std::string title;
    std::vector<std::string> lines;
    std::string keys;        // "y confirm   n cancel"
    std::size_t scroll = 0;  // first line shown
};

struct ScreenModel {
    std::string title;                       // "gpukill top  host  12:00:01  every 2.0 s"
    std::vector<std::string> gpu_lines;      // gpu_panel_lines of each GPU shown
    const std::vector<Row>* rows = nullptr;  // visible rows
    const ViewState* view = nullptr;
    std::string status;  // the last message, else the view's description
    bool readonly = false;
    std::optional<Overlay> overlay;
};

// The first process row shown so that the highlighted one is on screen: `top` moved as
// little as possible.
std::size_t scroll_for(std::size_t cursor, std::size_t top, std::size_t visible_lines);

// `top` is the first process row shown (see scroll_for); it is updated.
Frame build_frame(const ScreenModel& model, int width, int height, std::size_t& top);

// The help text: every key.
std::vector<std::string> help_lines();

}  // namespace gpukill::top

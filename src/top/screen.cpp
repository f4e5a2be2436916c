#include "top/screen.hpp"

#include <curses.h>

#include <cstdio>

namespace gpukill::top {

struct Screen::Impl {
    SCREEN* screen = nullptr;
    Frame last;
    bool colors = false;
    bool open = false;
};

namespace {

enum ScreenPair : short { kPairTagged = 1, kPairDim, kPairFlagged, kPairHeader };

attr_t screen_attributes(Style style, bool colors) {
    switch (style) {
        case Style::title:
            return A_BOLD | A_REVERSE;
        case Style::header:
            return colors ? (COLOR_PAIR(kPairHeader) | A_BOLD) : (A_BOLD | A_UNDERLINE);
        case Style::selected:
            return A_REVERSE;
        case Style::tagged:
            return colors ? (COLOR_PAIR(kPairTagged) | A_BOLD) : A_BOLD;
        case Style::dim:
            return colors ? (COLOR_PAIR(kPairDim) | A_DIM) : A_DIM;
        case Style::flagged:
            return colors ? COLOR_PAIR(kPairFlagged) : A_NORMAL;
        case Style::status:
            return A_BOLD;
        case Style::keys:
            return A_REVERSE;
        case Style::dialog:
            return A_BOLD;
        case Style::normal:
            break;
    }
    return A_NORMAL;
}

}  // namespace

Result<std::unique_ptr<Screen>> Screen::open() {
    std::unique_ptr<Screen> screen(new Screen());
    screen->impl_ = std::make_unique<Impl>();
    // newterm, not initscr: an unusable terminal is an error to report, not an exit.
    SCREEN* opened = newterm(nullptr, stdout, stdin);
    if (opened == nullptr) {
        return fail(ErrorCategory::unavailable,
                    "cannot drive this terminal (is TERM set to a terminal type ncurses knows?)");
    }
    screen->impl_->screen = opened;
    screen->impl_->open = true;
    set_term(opened);
    cbreak();  // keys at once; Ctrl-C still raises SIGINT
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    curs_set(0);
    set_escdelay(25);  // Esc clears tags at once, not after a second
    if (has_colors()) {
        start_color();
        use_default_colors();
        init_pair(kPairTagged, COLOR_YELLOW, -1);
        init_pair(kPairDim, COLOR_WHITE, -1);
        init_pair(kPairFlagged, COLOR_RED, -1);
        init_pair(kPairHeader, COLOR_BLACK, COLOR_GREEN);
        screen->impl_->colors = true;
    }
    return screen;
}

Screen::~Screen() {
    close();
}

void Screen::close() {
    if (!impl_ || !impl_->open) return;
    impl_->open = false;
    curs_set(1);
    endwin();
    delscreen(impl_->screen);
    impl_->screen = nullptr;
    std::fflush(stdout);
}

int Screen::width() const {
    return COLS;
}

int Screen::height() const {
    return LINES;
}

void Screen::show(const Frame& frame) {
    if (!impl_->open) return;
    const bool resized = frame.lines.size() != impl_->last.lines.size();
    for (std::size_t i = 0; i < frame.lines.size(); ++i) {
        if (!resized && i < impl_->last.lines.size() && impl_->last.lines[i] == frame.lines[i]) {
            continue;  // unchanged: not even handed to ncurses
        }
        const FrameLine& line = frame.lines[i];
        const int row = static_cast<int>(i);
        // Cleared before it is written, never after: a line exactly as wide as the screen
        // leaves the cursor on the next line, and clearing there would wipe a line that,
        // unchanged, is not drawn again.
        move(row, 0);
        attrset(A_NORMAL);
        clrtoeol();
        attrset(screen_attributes(line.style, impl_->colors));
        addnstr(line.text.c_str(), static_cast<int>(line.text.size()));
        // Selected and title lines are filled to the edge so the bar is whole. The cursor
        // says where the text ended (a multi-byte character is one column).
        if (line.style == Style::selected || line.style == Style::title ||
            line.style == Style::keys || line.style == Style::header) {
            int y = 0;
            int x = 0;
            getyx(stdscr, y, x);
            while (y == row && x < COLS) {
                if (row == LINES - 1 && x == COLS - 1) break;  // no scroll
                addch(' ');
                getyx(stdscr, y, x);
            }
        }
    }
    attrset(A_NORMAL);
    impl_->last = frame;
    refresh();
}

int Screen::read_key(int timeout_ms) {
    if (!impl_->open) return kKeyNone;
    timeout(timeout_ms < 0 ? 0 : timeout_ms);
    const int key = getch();
    if (key == KEY_RESIZE) {
        impl_->last = Frame{};  // everything again, at the new size
        clear();
        return kKeyResize;
    }
    switch (key) {
        case ERR:
            return kKeyNone;
        case KEY_UP:
            return kKeyUp;
        case KEY_DOWN:
            return kKeyDown;
        case KEY_PPAGE:
            return kKeyPageUp;
        case KEY_NPAGE:
            return kKeyPageDown;
        case KEY_HOME:
            return kKeyHome;
        case KEY_END:
            return kKeyEnd;
        case KEY_ENTER:
        case '\n':
        case '\r':
            return kKeyEnter;
        case KEY_BACKSPACE:
        case 127:
        case 8:
            return kKeyBackspace;
        case KEY_F(1):
            return kKeyHelp;
        default:
            return key >= 0 && key < 256 ? key : kKeyOther;
    }
}

}  // namespace gpukill::top

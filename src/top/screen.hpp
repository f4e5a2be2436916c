// The terminal under the monitor (ncurses): opened on stdin/stdout, a Frame put on it
// writing only the lines that changed since the last one, keys read with a timeout (no
// busy loop; a signal or a resize ends the wait early). The destructor restores the
// terminal, so every way out of the monitor (q, an error, an exception, SIGINT/SIGTERM)
// leaves the shell as it was.
#pragma once

#include <memory>

#include "model/result.hpp"
#include "top/frame.hpp"

namespace gpukill::top {

// Keys as read_key returns them: a character (0..255), or one of these.
inline constexpr int kKeyNone = -1;    // nothing within the timeout (or a signal)
inline constexpr int kKeyResize = -2;  // the terminal changed size (SIGWINCH)
inline constexpr int kKeyUp = -10;
inline constexpr int kKeyDown = -11;
inline constexpr int kKeyPageUp = -12;
inline constexpr int kKeyPageDown = -13;
inline constexpr int kKeyHome = -14;
inline constexpr int kKeyEnd = -15;
inline constexpr int kKeyEnter = -16;      // Enter, Return
inline constexpr int kKeyBackspace = -17;  // Backspace, DEL
inline constexpr int kKeyHelp = -18;       // F1
inline constexpr int kKeyOther = -19;      // a function key the monitor has no use for

class Screen {
  public:
    // Errors: unavailable (no terminal ncurses can drive, e.g. TERM unknown).
    static Result<std::unique_ptr<Screen>> open();
    ~Screen();
    Screen(const Screen&) = delete;
    Screen& operator=(const Screen&) = delete;

    int width() const;
    int height() const;
    void show(const Frame& frame);
    // The next key, waiting at most `timeout_ms`: a character or a kKey* value.
    int read_key(int timeout_ms);
    // Puts the terminal back (also done by the destructor); idempotent.
    void close();

  private:
    Screen() = default;
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace gpukill::top

// Repeats a frame every interval until SIGINT or SIGTERM, waking at once on either
// (signals are blocked and waited for with sigtimedwait, so there is no race
// between checking a flag and sleeping).
#pragma once

#include <functional>
#include <string>

namespace gpukill::cli {

struct WatchOptions {
    double interval_seconds = 2.0;
    bool clear_screen = true;  // redraw in place on a terminal; append otherwise
    // When set, SIGHUP calls it (guard run: read the policy again) and the next frame
    // follows at once; when empty, SIGHUP keeps its default action.
    std::function<void()> on_hangup;
};

// `frame` returns the text to show, or an exit code (non-zero stops the loop).
using FrameFn = std::function<int(std::string& text)>;

// Returns 0 when interrupted, or the first non-zero code `frame` returned.
int watch_until_interrupted(const WatchOptions& options, const FrameFn& frame);

}  // namespace gpukill::cli

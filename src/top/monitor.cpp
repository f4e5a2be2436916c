#include "top/monitor.hpp"

#include <signal.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "engine/process_details.hpp"
#include "model/human_format.hpp"
#include "sys/interrupt.hpp"
#include "top/monitor_state.hpp"

namespace gpukill::top {
namespace {

// The usage history takes a sample at most this often (its own min_interval); a monitor
// refreshing every second records no more than `list --watch` would.
constexpr double kHistoryEverySeconds = 10;

volatile sig_atomic_t monitor_hangup = 0;

void monitor_on_hangup(int) {
    monitor_hangup = 1;
}

// SIGHUP (the terminal went away) ends the monitor as SIGINT does, through the same path.
class HangupCatcher {
  public:
    HangupCatcher() {
        monitor_hangup = 0;
        struct sigaction action {};
        action.sa_handler = monitor_on_hangup;
        sigemptyset(&action.sa_mask);
        sigaction(SIGHUP, &action, &previous_);
    }
    ~HangupCatcher() { sigaction(SIGHUP, &previous_, nullptr); }
    HangupCatcher(const HangupCatcher&) = delete;
    HangupCatcher& operator=(const HangupCatcher&) = delete;

  private:
    struct sigaction previous_ {};
};

bool monitor_is_enter(int key) {
    return key == kKeyEnter;
}

constexpr int kKeyEscape = 27;

}  // namespace

Monitor::Monitor(engine::Engine& engine, const TopOptions& options, const Actor& actor,
                 Screen& screen)
    : engine_(engine), options_(options), actor_(actor), screen_(screen) {
    viewer_.uid = getuid();
    viewer_.privileged = engine::may_signal_any_user();
    view_.gpu = options.gpu;
    const double samples = 300.0 / options.interval_seconds;  // five minutes of them
    history_ = GpuHistory(static_cast<std::size_t>(std::clamp(samples, 60.0, 600.0)));
}

void Monitor::refresh() {
    const MonitorClock::time_point now = MonitorClock::now();
    const bool record =
        !recorded_at_ ||
        std::chrono::duration<double>(now - *recorded_at_).count() >= kHistoryEverySeconds;
    engine::ListOutcome listed = engine_.snapshot(record);
    if (record) recorded_at_ = now;
    if (listed.history_warning) status_ = *listed.history_warning;
    snapshot_ = std::move(listed.snapshot);

    std::vector<pid_t> pids;
    pids.reserve(snapshot_.processes.size());
    for (const SnapshotProcess& process : snapshot_.processes) pids.push_back(process.info.pid);
    CpuReadings readings;
    for (const engine::ProcessUsage& usage : engine::process_usage(engine_, pids)) {
        readings[{usage.identity.pid, usage.identity.start_time_ticks}] = {usage.cpu_ticks,
                                                                           usage.rss_bytes};
    }
    const double seconds = read_at_ ? std::chrono::duration<double>(now - *read_at_).count() : 0;
    rows_ = build_rows(snapshot_, readings, cpu_now_, seconds, viewer_);
    cpu_now_ = std::move(readings);
    read_at_ = now;
    history_.add(snapshot_);
    rebuild_view();
}

void Monitor::rebuild_view() {
    visible_ = visible_rows(rows_, view_);
    settle(view_, rows_, visible_);
}

void Monitor::draw() {
    const int width = screen_.width();
    ScreenModel model;
    std::size_t holders = snapshot_.processes.size();
    model.title =
        fmt::format("gpukill top  {}  {}  every {:g} s  {} GPU{}  {} holder{}",
                    printable(snapshot_.host), format_local_time(snapshot_.timestamp_unix_ms),
                    options_.interval_seconds, snapshot_.gpus.size(),
                    snapshot_.gpus.size() == 1 ? "" : "s", holders, holders == 1 ? "" : "s");
    for (const Gpu& gpu : snapshot_.gpus) {
        if (view_.gpu && gpu.index != *view_.gpu) continue;
        for (std::string& line : gpu_panel_lines(gpu, history_, width)) {
            model.gpu_lines.push_back(std::move(line));
        }
    }
    model.rows = &visible_;
    model.view = &view_;
    if (filtering_) {
        model.status = "filter: " + view_.filter + "_   (Enter keeps it, Esc clears it)";
    } else if (sort_prefix_) {
        model.status =
            "sort by: g GPU  p PID  u USER  m GPU-MEM  l GPU%  c CPU%  r HOST-MEM  "
            "t TIME  k CONTAINER  s SEEN BY  n NAME  a COMMAND";
    } else {
        model.status = status_.empty() ? describe_view(view_) : status_;
    }
    model.readonly = options_.readonly;
    model.overlay = overlay_;
    screen_.show(build_frame(model, width, screen_.height(), top_row_));
}

void Monitor::open_overlay(Mode mode, Overlay overlay) {
    mode_ = mode;
    overlay_ = std::move(overlay);
}

void Monitor::close_overlay() {
    mode_ = Mode::panels;
    overlay_.reset();
    planned_.reset();
}

void Monitor::step_sort(int delta) {
    const std::vector<Column>& columns = sort_columns();
    auto at = std::find(columns.begin(), columns.end(), view_.sort);
    const long count = static_cast<long>(columns.size());
    long index = (at - columns.begin()) + delta;
    index = ((index % count) + count) % count;
    view_.sort = columns[static_cast<std::size_t>(index)];
    rebuild_view();
}

void Monitor::cycle_gpu() {
    std::vector<unsigned> indexes;
    for (const Gpu& gpu : snapshot_.gpus) indexes.push_back(gpu.index);
    if (indexes.empty()) {
        view_.gpu.reset();
    } else if (!view_.gpu) {
        view_.gpu = indexes.front();
    } else {
        auto next = std::upper_bound(indexes.begin(), indexes.end(), *view_.gpu);
        if (next == indexes.end()) {
            view_.gpu.reset();
        } else {
            view_.gpu = *next;
        }
    }
    top_row_ = 0;
    rebuild_view();
}

void Monitor::handle_filter_key(int key) {
    if (monitor_is_enter(key)) {
        filtering_ = false;
    } else if (key == kKeyEscape) {
        filtering_ = false;
        view_.filter.clear();
    } else if (key == kKeyBackspace) {
        if (!view_.filter.empty()) view_.filter.pop_back();
    } else if (key >= 32 && key < 127 && view_.filter.size() < 200) {
        view_.filter.push_back(static_cast<char>(key));
    }
    top_row_ = 0;
    rebuild_view();
}

void Monitor::handle_sort_key(int key) {
    sort_prefix_ = false;
    if (key > 0 && key < 128) {
        if (auto column = column_for_sort_key(static_cast<char>(key))) {
            view_.sort = *column;
            rebuild_view();
            return;
        }
    }
    status_ = "no column for that key (see h)";
}

void Monitor::handle_overlay_key(int key) {
    const std::size_t page = static_cast<std::size_t>(std::max(1, screen_.height() - 8));
    Overlay& overlay = *overlay_;
    const std::size_t last = overlay.lines.empty() ? 0 : overlay.lines.size() - 1;
    switch (key) {
        case kKeyUp:
            if (overlay.scroll > 0) --overlay.scroll;
            return;
        case kKeyDown:
            overlay.scroll = std::min(last, overlay.scroll + 1);
            return;
        case kKeyPageUp:
            overlay.scroll = overlay.scroll > page ? overlay.scroll - page : 0;
            return;
        case kKeyPageDown:
            overlay.scroll = std::min(last, overlay.scroll + page);
            return;
        default:
            break;
    }
    switch (mode_) {
        case Mode::confirm_kill:
            if (key == 'y' || key == 'Y') {
                execute_signal();
            } else {
                close_overlay();
                status_ = "cancelled: nothing was sent";
            }
            return;
        case Mode::confirm_reset:
            if (key == 'y' || key == 'Y') {
                execute_reset();
            } else {
                close_overlay();
                status_ = "cancelled: nothing was reset";
            }
            return;
        case Mode::result:
            if (key == 'R' && !soft_locked_.empty()) {
                offer_reset();
                return;
            }
            close_overlay();
            return;
        default:
            close_overlay();
            return;
    }
}

bool Monitor::handle_key(int key) {
    if (filtering_) {
        handle_filter_key(key);
        return true;
    }
    if (sort_prefix_) {
        handle_sort_key(key);
        return true;
    }
    if (overlay_) {
        handle_overlay_key(key);
        return true;
    }
    status_.clear();
    const long page = std::max(1, screen_.height() / 2);
    switch (key) {
        case 'q':
            return false;
        case kKeyUp:
            move_cursor(view_, visible_, -1);
            break;
        case kKeyDown:
            move_cursor(view_, visible_, 1);
            break;
        case kKeyPageUp:
            move_cursor(view_, visible_, -page);
            break;
        case kKeyPageDown:
            move_cursor(view_, visible_, page);
            break;
        case kKeyHome:
            place_cursor(view_, visible_, 0);
            break;
        case kKeyEnd:
            place_cursor(view_, visible_, visible_.empty() ? 0 : visible_.size() - 1);
            break;
        case 'h':
        case '?':
        case kKeyHelp:
            open_overlay(Mode::help,
                         {.title = "Keys", .lines = help_lines(), .keys = "any key closes"});
            break;
        case ',':
            step_sort(-1);
            break;
        case '.':
            step_sort(1);
            break;
        case '/':
            view_.reverse = !view_.reverse;
            rebuild_view();
            break;
        case 'o':
            sort_prefix_ = true;
            break;
        case 't':
            view_.tree = !view_.tree;
            rebuild_view();
            break;
        case 'f':
        case '\\':
            filtering_ = true;
            break;
        case 'g':
            cycle_gpu();
            break;
        case ' ':
            if (auto why = toggle_tag(view_, visible_)) {
                status_ = *why;
            } else {
                move_cursor(view_, visible_, 1);
            }
            break;
        case kKeyEscape:
            if (!view_.tags.empty()) status_ = "tags cleared";
            view_.tags.clear();
            break;
        case 'T':
            plan_signal("SIGTERM");
            break;
        case 'K':
            plan_signal("SIGKILL");
            break;
        case 'I':
            plan_signal("SIGINT");
            break;
        case 'R':
            if (soft_locked_.empty()) {
                status_ = "no GPU was left soft-locked by a kill here (gpukill reset resets any)";
            } else {
                offer_reset();
            }
            break;
        case 'e':
            show_environment();
            break;
        default:
            if (monitor_is_enter(key)) show_details();
            break;
    }
    return true;
}

void Monitor::run() {
    const InterruptCatcher interrupt;
    const HangupCatcher hangup;
    const auto interval = std::chrono::duration_cast<MonitorClock::duration>(
        std::chrono::duration<double>(options_.interval_seconds));
    MonitorClock::time_point next = MonitorClock::now();
    while (!InterruptCatcher::caught() && monitor_hangup == 0) {
        if (MonitorClock::now() >= next) {
            refresh();
            next = MonitorClock::now() + interval;
        }
        draw();
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(next - MonitorClock::now());
        const int key = screen_.read_key(static_cast<int>(std::max<long long>(0, left.count())));
        if (key == kKeyNone || key == kKeyResize) continue;
        if (!handle_key(key)) break;
    }
}

Result<void> run_top(engine::Engine& engine, const TopOptions& options, const Actor& actor) {
    if (!(options.interval_seconds >= kMinIntervalSeconds &&
          options.interval_seconds <= kMaxIntervalSeconds)) {
        return fail(ErrorCategory::invalid_input,
                    "--interval must be between 0.1 and 86400 seconds");
    }
    auto screen = Screen::open();
    if (!screen) return std::unexpected(screen.error());
    try {
        Monitor monitor(engine, options, actor, **screen);
        monitor.run();
    } catch (...) {
        (*screen)->close();  // the terminal first, then the error on a usable screen
        throw;
    }
    (*screen)->close();
    return {};
}

}  // namespace gpukill::top

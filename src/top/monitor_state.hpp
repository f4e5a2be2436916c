// The monitor's running state and its steps (internal to src/top): monitor.cpp holds
// the loop, the refresh and the keys; monitor_actions.cpp the signals, the reset and the
// detail views, each through the engine.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "engine/kill.hpp"
#include "engine/reset.hpp"
#include "model/actor.hpp"
#include "model/snapshot.hpp"
#include "top/frame.hpp"
#include "top/gpu_panel.hpp"
#include "top/monitor.hpp"
#include "top/rows.hpp"
#include "top/screen.hpp"
#include "top/view.hpp"

namespace gpukill::top {

using MonitorClock = std::chrono::steady_clock;

class Monitor {
  public:
    Monitor(engine::Engine& engine, const TopOptions& options, const Actor& actor, Screen& screen);
    void run();

  private:
    // What the overlay in front is, and so what the keys mean.
    enum class Mode { panels, help, text, confirm_kill, result, confirm_reset };

    void refresh();
    void rebuild_view();
    void draw();
    bool handle_key(int key);  // false: quit
    void handle_overlay_key(int key);
    void handle_filter_key(int key);
    void handle_sort_key(int key);
    void step_sort(int delta);
    void cycle_gpu();
    void open_overlay(Mode mode, Overlay overlay);
    void close_overlay();

    // monitor_actions.cpp
    void plan_signal(const char* signal);
    void execute_signal();
    void offer_reset();
    void execute_reset();
    void show_details();
    void show_environment();
    bool refuse_if_readonly();

    engine::Engine& engine_;
    TopOptions options_;
    Actor actor_;
    Screen& screen_;
    Viewer viewer_;

    Snapshot snapshot_;
    std::vector<Row> rows_;
    std::vector<Row> visible_;
    ViewState view_;
    GpuHistory history_;
    CpuReadings cpu_now_;
    std::optional<MonitorClock::time_point> read_at_;
    std::optional<MonitorClock::time_point> recorded_at_;
    std::size_t top_row_ = 0;

    Mode mode_ = Mode::panels;
    std::optional<Overlay> overlay_;
    std::string status_;
    bool filtering_ = false;
    bool sort_prefix_ = false;

    std::optional<engine::KillOutcome> planned_;
    std::optional<engine::ResetOutcome> reset_preview_;
    std::vector<unsigned> soft_locked_;  // left so by the last kill: R offers a reset
};

}  // namespace gpukill::top

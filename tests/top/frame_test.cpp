// The screen as text at the sizes people use (80x24, 200x50): every line fits, the
// panels and the key line are there, the highlighted row stays on screen, a dialog
// covers the middle. Matched by content, not by exact layout.
#include <gtest/gtest.h>

#include <set>

#include "top/frame.hpp"
#include "top/gpu_panel.hpp"
#include "top/view.hpp"
#include "top_test_support.hpp"

namespace gpukill::top {
namespace {

using top_test::host_with;
using top_test::kGiB;
using top_test::rows_of;

std::string text_of(const Frame& frame) {
    std::string all;
    for (const FrameLine& line : frame.lines) all += line.text + "\n";
    return all;
}

struct FrameFixture {
    Snapshot snapshot;
    std::vector<Row> rows;
    ViewState view;
    GpuHistory history;
    ScreenModel model;

    explicit FrameFixture(int width, std::size_t holders = 3) {
        std::vector<top_test::Holder> list;
        for (std::size_t i = 0; i < holders; ++i) {
            list.push_back(
                {static_cast<pid_t>(1000 + i), 1, "alice", 1000, "train", 0, (i + 1) * kGiB});
        }
        snapshot = host_with(list, 2, 3 * kGiB);
        history.add(snapshot);
        rows = visible_rows(rows_of(snapshot), view);
        model.title = "gpukill top  node1";
        for (const Gpu& gpu : snapshot.gpus) {
            for (std::string& line : gpu_panel_lines(gpu, history, width)) {
                model.gpu_lines.push_back(std::move(line));
            }
        }
        model.rows = &rows;
        model.view = &view;
        model.status = describe_view(view);
    }
};

void expect_fits(const Frame& frame, int width, int height) {
    ASSERT_EQ(frame.lines.size(), static_cast<std::size_t>(height));
    for (const FrameLine& line : frame.lines) {
        EXPECT_LE(line.text.size(), static_cast<std::size_t>(width)) << line.text;
    }
}

TEST(TopFrame, At80x24EverythingFitsAndTheEssentialsAreThere) {
    FrameFixture f(80);
    std::size_t top = 0;
    const Frame frame = build_frame(f.model, 80, 24, top);
    expect_fits(frame, 80, 24);
    const std::string text = text_of(frame);
    EXPECT_NE(text.find("GPU 0"), std::string::npos);
    EXPECT_NE(text.find("MEM ["), std::string::npos);
    EXPECT_NE(text.find("PID"), std::string::npos);
    EXPECT_NE(text.find("SEEN BY"), std::string::npos);
    EXPECT_NE(text.find("(unaccounted)"), std::string::npos);
    EXPECT_NE(text.find("q quit"), std::string::npos);
    EXPECT_EQ(text.find("CONTAINER"), std::string::npos);  // no room at 80 columns
}

TEST(TopFrame, At200x50TheWideColumnsAppear) {
    FrameFixture f(200);
    std::size_t top = 0;
    const Frame frame = build_frame(f.model, 200, 50, top);
    expect_fits(frame, 200, 50);
    const std::string text = text_of(frame);
    for (const char* title : {"CONTAINER", "HOST-MEM", "TIME", "NAME", "COMMAND", "CPU%"}) {
        EXPECT_NE(text.find(title), std::string::npos) << title;
    }
}

TEST(TopFrame, TheHighlightedRowIsAlwaysOnScreen) {
    FrameFixture f(80, 60);
    place_cursor(f.view, f.rows, 55);
    std::size_t top = 0;
    const Frame frame = build_frame(f.model, 80, 24, top);
    expect_fits(frame, 80, 24);
    bool selected = false;
    for (const FrameLine& line : frame.lines) {
        if (line.style == Style::selected) {
            selected = true;
            EXPECT_NE(line.text.find(std::to_string(f.rows[55].identity.pid)), std::string::npos);
        }
    }
    EXPECT_TRUE(selected);
    EXPECT_GT(top, 0u);
}

TEST(TopFrame, ADialogCoversTheMiddleAndSaysItsKeys) {
    FrameFixture f(80);
    f.model.overlay = Overlay{.title = "SIGKILL",
                              .lines = {"Send SIGKILL to 2 processes?", "  PID 1000  alice"},
                              .keys = "y send   n cancel",
                              .scroll = 0};
    std::size_t top = 0;
    const Frame frame = build_frame(f.model, 80, 24, top);
    expect_fits(frame, 80, 24);
    const std::string text = text_of(frame);
    EXPECT_NE(text.find("Send SIGKILL to 2 processes?"), std::string::npos);
    EXPECT_NE(text.find("y send"), std::string::npos);
}

TEST(TopFrame, ATinyTerminalStillGetsAFrameOfItsSize) {
    FrameFixture f(20);
    std::size_t top = 0;
    expect_fits(build_frame(f.model, 20, 5, top), 20, 5);
    EXPECT_TRUE(build_frame(f.model, 0, 0, top).lines.empty());
}

// At 80 columns an H100's figures are each whole: the bars give way, then the power
// limit, never a number cut in two ("574W/7").
TEST(TopGpuPanel, At80ColumnsEveryFigureIsWhole) {
    Snapshot snapshot = host_with({}, 1);
    GpuReading& r = snapshot.gpus[0].reading;
    r.name = "NVIDIA H100 80GB HBM3";
    r.temperature_celsius = 33;
    r.power_watts = 574;
    r.power_limit_watts = 700;
    r.utilization_percent = 87;
    GpuHistory history;
    history.add(snapshot);
    for (int width : {80, 100, 120, 200}) {
        const std::string line = gpu_panel_lines(snapshot.gpus[0], history, width).front();
        EXPECT_LE(line.size(), static_cast<std::size_t>(width)) << line;
        EXPECT_NE(line.find(" 87%"), std::string::npos) << width << ": " << line;
        EXPECT_NE(line.find("33C"), std::string::npos) << line;
        const bool with_limit = line.find(" 574W/700W ") != std::string::npos;
        EXPECT_TRUE(with_limit || line.find(" 574W ") != std::string::npos) << line;
        EXPECT_NE(line.find("MEM ["), std::string::npos) << line;
    }
    EXPECT_NE(gpu_panel_lines(snapshot.gpus[0], history, 120).front().find("574W/700W"),
              std::string::npos);

    // Memory nobody accounts for closes the sparkline line, whole.
    snapshot.gpus[0].unattributed_memory_bytes = 16 * kGiB;
    for (int width : {80, 120}) {
        const std::vector<std::string> lines = gpu_panel_lines(snapshot.gpus[0], history, width);
        EXPECT_LE(lines[0].size(), static_cast<std::size_t>(width)) << lines[0];
        EXPECT_LE(lines[1].size(), static_cast<std::size_t>(width)) << lines[1];
        EXPECT_TRUE(lines[1].ends_with("  16.0 GiB unaccounted")) << lines[1];
    }
}

// The key line names whole keys: what does not fit is left to the help (h).
TEST(TopFrame, TheKeyLineNeverCutsAKey) {
    for (bool readonly : {false, true}) {
        for (int width : {40, 80, 100, 200}) {
            FrameFixture f(width);
            f.model.readonly = readonly;
            std::size_t top = 0;
            const Frame frame = build_frame(f.model, width, 24, top);
            const std::string& keys = frame.lines.back().text;
            ASSERT_EQ(frame.lines.back().style, Style::keys);
            EXPECT_TRUE(keys.starts_with("q quit  h help")) << keys;
            // Every key named is one of the monitor's, whole.
            const std::set<std::string> known = {
                "q quit",   "h help", ",. sort",   ",./ sort",     "/ reverse",     "t tree",
                "f filter", "g GPU",  "Space tag", "T/K/I signal", "Enter details", "e env"};
            for (std::size_t at = 0; at < keys.size();) {
                const std::size_t end = std::min(keys.find("  ", at), keys.size());
                EXPECT_TRUE(known.contains(keys.substr(at, end - at)))
                    << "'" << keys.substr(at, end - at) << "' in " << keys;
                at = end + 2;
            }
            EXPECT_FALSE(keys.ends_with(" ")) << keys;
            if (width >= 100) {
                EXPECT_TRUE(keys.ends_with("e env")) << keys;
            }
        }
    }
}

TEST(TopGpuPanel, SparklinesKeepTheNewestSampleLastAndTheHistoryBounded) {
    EXPECT_EQ(sparkline({0.0, 1.0}, 4), "  _#");
    EXPECT_EQ(sparkline({std::nullopt, 0.5}, 2), " =");
    EXPECT_EQ(meter(0.5, 4), "[||  ]");
    EXPECT_EQ(meter(std::nullopt, 2), "[??]");
    GpuHistory history(3);
    Snapshot snapshot = host_with({}, 1);
    for (int i = 0; i < 10; ++i) history.add(snapshot);
    EXPECT_EQ(history.of(0)->size(), 3u);
    EXPECT_EQ(history.of(7), nullptr);
}

}  // namespace
}  // namespace gpukill::top

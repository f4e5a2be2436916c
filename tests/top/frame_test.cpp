// The screen as text at the sizes people use (80x24, 200x50): every line fits, the
// panels and the key line are there, the highlighted row stays on screen, a dialog
// covers the middle. Matched by content, not by exact layout.
#include <gtest/gtest.h>

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

// What the process panel shows: sorting (and its reversal), the filter, one GPU, tree
// order with workers under their parent, tags that follow a process across refreshes
// and are dropped when it is gone, and what an action applies to.
#include <gtest/gtest.h>

#include <algorithm>

#include "top/view.hpp"
#include "top_test_support.hpp"

namespace gpukill::top {
namespace {

using top_test::host_with;
using top_test::kGiB;
using top_test::rows_of;

std::vector<pid_t> pids_of(const std::vector<Row>& rows) {
    std::vector<pid_t> pids;
    for (const Row& row : rows) pids.push_back(row.identity.pid);
    return pids;
}

const Snapshot kHost = host_with({{300, 1, "carol", 1002, "small", 1, 1 * kGiB},
                                  {100, 1, "alice", 1000, "trainer", 0, 6 * kGiB},
                                  {101, 100, "alice", 1000, "worker", 0, 2 * kGiB},
                                  {102, 100, "alice", 1000, "worker", 0, 3 * kGiB},
                                  {200, 1, "bob", 1001, "infer", 1, 4 * kGiB}});

TEST(TopView, MemoryHighFirstByDefaultAndSlashReverses) {
    ViewState view;
    EXPECT_EQ(pids_of(visible_rows(rows_of(kHost), view)),
              (std::vector<pid_t>{100, 200, 102, 101, 300}));
    view.reverse = true;
    EXPECT_EQ(pids_of(visible_rows(rows_of(kHost), view)),
              (std::vector<pid_t>{300, 101, 102, 200, 100}));
}

TEST(TopView, SortKeysNameTheirColumns) {
    ViewState view;
    view.sort = *column_for_sort_key('p');
    EXPECT_EQ(pids_of(visible_rows(rows_of(kHost), view)),
              (std::vector<pid_t>{100, 101, 102, 200, 300}));
    view.sort = *column_for_sort_key('u');
    EXPECT_EQ(visible_rows(rows_of(kHost), view).front().user, "alice");
    EXPECT_FALSE(column_for_sort_key('Z'));
    EXPECT_EQ(sort_columns().size(), all_columns().size());
}

TEST(TopView, FilterMatchesNameCommandUserAndPid) {
    ViewState view;
    view.filter = "WORK";  // case-insensitive
    EXPECT_EQ(pids_of(visible_rows(rows_of(kHost), view)), (std::vector<pid_t>{102, 101}));
    view.filter = "bob";
    EXPECT_EQ(pids_of(visible_rows(rows_of(kHost), view)), (std::vector<pid_t>{200}));
    view.filter = "300";
    EXPECT_EQ(pids_of(visible_rows(rows_of(kHost), view)), (std::vector<pid_t>{300}));
    view.filter = "nothing-like-it";
    EXPECT_TRUE(visible_rows(rows_of(kHost), view).empty());
}

TEST(TopView, OneGpuOnly) {
    ViewState view;
    view.gpu = 1;
    EXPECT_EQ(pids_of(visible_rows(rows_of(kHost), view)), (std::vector<pid_t>{200, 300}));
}

TEST(TopView, TreeShowsWorkersUnderTheirParent) {
    ViewState view;
    view.tree = true;
    const std::vector<Row> rows = visible_rows(rows_of(kHost), view);
    EXPECT_EQ(pids_of(rows), (std::vector<pid_t>{100, 102, 101, 200, 300}));
    EXPECT_EQ(rows[0].depth, 0);
    EXPECT_EQ(rows[1].depth, 1);
    EXPECT_EQ(rows[2].depth, 1);
    EXPECT_EQ(rows[3].depth, 0);
    // With the parent filtered out, its workers are roots.
    view.filter = "worker";
    const std::vector<Row> alone = visible_rows(rows_of(kHost), view);
    ASSERT_EQ(alone.size(), 2u);
    EXPECT_EQ(alone[0].depth, 0);
}

TEST(TopView, TreeSurvivesAParentCycle) {
    const Snapshot cycle =
        host_with({{10, 11, "a", 0, "x", 0, kGiB}, {11, 10, "a", 0, "y", 0, kGiB}});
    ViewState view;
    view.tree = true;
    EXPECT_EQ(visible_rows(rows_of(cycle), view).size(), 2u);
}

TEST(TopView, TagsFollowTheProcessAndTheActionTakesThem) {
    const std::vector<Row> all = rows_of(kHost);
    ViewState view;
    view.sort = Column::pid;
    std::vector<Row> visible = visible_rows(all, view);
    settle(view, all, visible);
    place_cursor(view, visible, 1);  // 101
    EXPECT_FALSE(toggle_tag(view, visible));
    place_cursor(view, visible, 2);  // 102
    EXPECT_FALSE(toggle_tag(view, visible));
    EXPECT_EQ(view.tags.size(), 2u);

    // A filter hides them; they stay tagged, and the action still takes both.
    view.filter = "infer";
    visible = visible_rows(all, view);
    settle(view, all, visible);
    ActionTargets targets = action_targets(view, all, visible);
    EXPECT_EQ(pids_of(targets.rows), (std::vector<pid_t>{101, 102}));

    // 101 exits: its tag goes with it.
    std::vector<Row> after;
    std::copy_if(all.begin(), all.end(), std::back_inserter(after),
                 [](const Row& r) { return r.identity.pid != 101; });
    settle(view, after, visible_rows(after, view));
    EXPECT_EQ(view.tags.size(), 1u);
}

TEST(TopView, WithoutTagsTheHighlightedRowIsTheTargetAndOthersUsersAreRefused) {
    const std::vector<Row> all = rows_of(kHost, {.uid = 1000, .privileged = false});
    ViewState view;
    view.sort = Column::pid;
    const std::vector<Row> visible = visible_rows(all, view);
    place_cursor(view, visible, 3);          // 200, bob's
    ASSERT_TRUE(toggle_tag(view, visible));  // cannot be tagged: why
    ActionTargets targets = action_targets(view, all, visible);
    EXPECT_TRUE(targets.rows.empty());
    ASSERT_EQ(targets.refused.size(), 1u);
    EXPECT_NE(targets.refused[0].not_actionable_reason.find("only root"), std::string::npos);
    place_cursor(view, visible, 0);
    EXPECT_EQ(pids_of(action_targets(view, all, visible).rows), (std::vector<pid_t>{100}));
}

TEST(TopView, TheCursorStaysOnItsProcessWhenRowsMove) {
    const std::vector<Row> all = rows_of(kHost);
    ViewState view;
    std::vector<Row> visible = visible_rows(all, view);
    place_cursor(view, visible, 1);  // 200 (second by memory)
    view.sort = Column::pid;
    visible = visible_rows(all, view);
    settle(view, all, visible);
    EXPECT_EQ(visible[view.cursor].identity.pid, 200);
    move_cursor(view, visible, 100);
    EXPECT_EQ(view.cursor, visible.size() - 1);
    move_cursor(view, visible, -100);
    EXPECT_EQ(view.cursor, 0u);
}

TEST(TopView, NarrowTerminalsDropTheLeastNeededColumnsFirst) {
    const std::vector<Column> narrow = columns_for_width(80);
    auto has = [](const std::vector<Column>& columns, Column c) {
        return std::find(columns.begin(), columns.end(), c) != columns.end();
    };
    EXPECT_TRUE(has(narrow, Column::pid));
    EXPECT_TRUE(has(narrow, Column::seen_by));
    EXPECT_TRUE(has(narrow, Column::command));
    EXPECT_FALSE(has(narrow, Column::container));
    const std::vector<Column> wide = columns_for_width(200);
    EXPECT_EQ(wide.size(), all_columns().size());
}

}  // namespace
}  // namespace gpukill::top

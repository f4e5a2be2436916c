// Fitting text to a terminal: prose wraps at spaces, a table's free-text column is cut
// with an ellipsis, optional columns go before the last one is squeezed, and without
// a width nothing changes.
#include <gtest/gtest.h>

#include "cli/text_table.hpp"
#include "cli/text_wrap.hpp"

namespace gpukill::cli {
namespace {

TEST(TextWrap, WrapsAtSpacesAndBreaksAWordLongerThanTheLine) {
    EXPECT_EQ(wrap_words("one two three four", 9),
              (std::vector<std::string>{"one two", "three", "four"}));
    EXPECT_EQ(wrap_words("/a/very/long/path", 6),
              (std::vector<std::string>{"/a/ver", "y/long", "/path"}));
    EXPECT_EQ(wrap_words("", 10), (std::vector<std::string>{""}));
}

TEST(TextWrap, CutsWithAnEllipsisCountingCodePointsNotBytes) {
    EXPECT_EQ(cut_to_width("python train.py", 10), "python tr…");
    EXPECT_EQ(cut_to_width("33°C", 4), "33°C");
    EXPECT_EQ(display_width(cut_to_width("ééééééé", 4)), 4u);
    EXPECT_EQ(cut_to_width("short", 80), "short");
}

TEST(TextWrap, FitWrapsLongLinesUnderTheirIndentAndLeavesShortOnes) {
    const std::string text =
        "short line\n  ! GPU 1: 16.0 GiB used but not in the driver's process list; two "
        "processes hold it\n";
    const std::string fitted = fit_to_width(text, 40);
    EXPECT_LE(widest_line(fitted), 40u) << fitted;
    EXPECT_EQ(fitted.rfind("short line\n  ! GPU 1:", 0), 0u) << fitted;
    EXPECT_NE(fitted.find("\n    "), std::string::npos) << "continuation indented: " << fitted;
    EXPECT_EQ(fit_to_width(text, std::nullopt), text);
}

TEST(TextTableWidth, CutsTheLastColumnSoEveryRowFits) {
    TextTable table({"PID", "NAME", "COMMAND"}, {true, false, false});
    table.add_row({"4242", "python", "python train.py --data /datasets/imagenet --epochs 90"});
    const std::string rendered = table.render(0, 40);
    EXPECT_LE(widest_line(rendered), 40u) << rendered;
    EXPECT_NE(rendered.find("python train.py"), std::string::npos);
    EXPECT_NE(rendered.find("…"), std::string::npos);
    EXPECT_NE(table.render().find("--epochs 90"), std::string::npos) << "no width, no cut";
}

TEST(TextTableWidth, DropsOptionalColumnsBeforeSqueezingTheLastOne) {
    TextTable table({"PID", "STARTED", "COMMAND"}, {true, false, false});
    table.add_row({"4242", "2026-12-02 10:00:00", "python train.py"});
    table.drop_when_narrow("STARTED");
    const std::string narrow = table.render(0, 24);
    EXPECT_EQ(narrow.find("STARTED"), std::string::npos) << narrow;
    EXPECT_NE(narrow.find("python train.py"), std::string::npos) << narrow;
    EXPECT_NE(table.render(0, 80).find("STARTED"), std::string::npos) << "room: kept";
}

}  // namespace
}  // namespace gpukill::cli

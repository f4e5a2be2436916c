#include <gtest/gtest.h>

#include "cli/human_format.hpp"
#include "cli/text_table.hpp"

namespace gpukill::cli {
namespace {

TEST(Printable, ControlBytesFromProcessesCannotReachTheTerminal) {
    EXPECT_EQ(printable("ev\x1b[2J\x1b]0;pwn\a\nil"), "ev?[2J?]0;pwn??il");
    EXPECT_EQ(printable("python3 train.py"), "python3 train.py");
    EXPECT_EQ(printable("caf\xc3\xa9"), "caf\xc3\xa9");  // UTF-8 stays readable
}

TEST(Printable, ATableRowCannotBeSplitByANewlineInAName) {
    TextTable table({"PID", "NAME"});
    table.add_row({"42", "evil\n99  root-looking-row"});
    std::string out = table.render();
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 2) << out;
}

}  // namespace
}  // namespace gpukill::cli

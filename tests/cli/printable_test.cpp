#include <gtest/gtest.h>

#include "cli/text_table.hpp"
#include "model/human_format.hpp"

namespace gpukill::cli {
namespace {

TEST(Printable, ControlBytesFromProcessesCannotReachTheTerminal) {
    EXPECT_EQ(printable("ev\x1b[2J\x1b]0;pwn\a\nil"), "ev?[2J?]0;pwn??il");
    EXPECT_EQ(printable("python3 train.py"), "python3 train.py");
    EXPECT_EQ(printable("caf\xc3\xa9"), "caf\xc3\xa9");  // UTF-8 stays readable
}

TEST(Printable, C1ControlsInvalidBytesAndBidiOverridesBecomeQuestionMarks) {
    EXPECT_EQ(printable("a\xc2\x9b"
                        "2Jb"),
              "a?2Jb");  // C1 CSI, encoded
    EXPECT_EQ(printable("a\x9b"
                        "2Jb"),
              "a?2Jb");                                 // raw 0x9b: not UTF-8
    EXPECT_EQ(printable("x\xe2\x80\xaegpj"), "x?gpj");  // U+202E right-to-left override
    EXPECT_EQ(printable("\xff\xfe"), "??");
    EXPECT_EQ(printable("\xe6\x97\xa5\xe6\x9c\xac"), "\xe6\x97\xa5\xe6\x9c\xac");  // CJK stays
}

TEST(Printable, ATableRowCannotBeSplitByANewlineInAName) {
    TextTable table({"PID", "NAME"});
    table.add_row({"42", "evil\n99  root-looking-row"});
    std::string out = table.render();
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 2) << out;
}

}  // namespace
}  // namespace gpukill::cli

// The parser's messages in the command line's words.
#include "cli/diagnostics.hpp"

#include <gtest/gtest.h>

namespace gpukill::cli {
namespace {

TEST(Diagnostics, AnOptionWithoutItsValueSaysSo) {
    EXPECT_EQ(parse_error_text("--pid: 1 required PID missing"), "--pid needs a value: a PID");
    EXPECT_EQ(parse_error_text("--range: 2 required INT missing"), "--range needs 2 values: INT");
    EXPECT_EQ(parse_error_text("1 required PID missing"),
              "an option was given without its value (PID)");
    EXPECT_EQ(parse_error_text("--interval: Value abc not a number"),
              "--interval: Value abc not a number");
}

}  // namespace
}  // namespace gpukill::cli

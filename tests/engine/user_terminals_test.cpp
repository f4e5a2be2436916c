// Which descriptors count as a user's terminal for guard warnings.
#include "engine/user_terminals.hpp"

#include <unistd.h>

#include <gtest/gtest.h>

namespace gpukill::engine {
namespace {

TEST(GuardTerminals, OnlyPseudoTerminalsAndVirtualConsoles) {
    EXPECT_TRUE(is_user_terminal("/dev/pts/3"));
    EXPECT_TRUE(is_user_terminal("/dev/tty2"));
    EXPECT_FALSE(is_user_terminal("/dev/tty"));       // the caller's own, whoever that is
    EXPECT_FALSE(is_user_terminal("/dev/ttyS0"));     // a serial line
    EXPECT_FALSE(is_user_terminal("/dev/pts/ptmx"));  // the multiplexer
    EXPECT_FALSE(is_user_terminal("/dev/null"));
    EXPECT_FALSE(is_user_terminal("pipe:[1234]"));
    EXPECT_FALSE(is_user_terminal("/home/alice/dev/pts/1"));
}

TEST(GuardTerminals, NothingIsWrittenToAFileOrAnotherUsersTerminal) {
    char path[] = "/tmp/gpukill-tty-XXXXXX";
    const int fd = ::mkstemp(path);
    ASSERT_GE(fd, 0);
    ::close(fd);
    // A regular file is never written to, even when named as a terminal.
    EXPECT_TRUE(write_to_terminals({path}, ::geteuid(), "hello").empty());
    ::unlink(path);
    EXPECT_TRUE(write_to_terminals({"/dev/null"}, ::geteuid() + 1, "hello").empty());
}

}  // namespace
}  // namespace gpukill::engine

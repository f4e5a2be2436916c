// Which descriptors count as a user's terminal for guard warnings.
#include "engine/user_terminals.hpp"

#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <stdexcept>

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

// A real pseudo-terminal: the test holds its master side and reads what reached it.
class PseudoTerminal {
  public:
    PseudoTerminal() : master_(::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)) {
        if (master_ < 0 || ::grantpt(master_) != 0 || ::unlockpt(master_) != 0) {
            throw std::runtime_error("no pseudo-terminal");
        }
        path_ = ::ptsname(master_);
        // Opened once, so the line stays up while the writer opens and closes it.
        slave_ = ::open(path_.c_str(), O_RDWR | O_NOCTTY | O_CLOEXEC);
    }
    ~PseudoTerminal() {
        ::close(slave_);
        ::close(master_);
    }
    const std::string& path() const { return path_; }
    // Everything written to the terminal so far.
    std::string received() const {
        std::string text;
        char buffer[4096];
        pollfd p{master_, POLLIN, 0};
        while (::poll(&p, 1, 100) == 1 && (p.revents & POLLIN) != 0) {
            const ssize_t n = ::read(master_, buffer, sizeof buffer);
            if (n <= 0) break;
            text.append(buffer, static_cast<std::size_t>(n));
        }
        return text;
    }

  private:
    int master_ = -1;
    int slave_ = -1;
    std::string path_;
};

TEST(GuardTerminals, TheWarningReachesTheUsersOwnTerminal) {
    PseudoTerminal tty;
    ASSERT_EQ(::chown(tty.path().c_str(), ::geteuid(), static_cast<gid_t>(-1)), 0);
    const auto written =
        write_to_terminals({tty.path()}, ::geteuid(), "gpukill guard: your process 42 breaks");
    EXPECT_EQ(written, std::set<std::string>{tty.path()});
    const std::string seen = tty.received();
    EXPECT_NE(seen.find("gpukill guard: your process 42 breaks"), std::string::npos) << seen;
    // Made printable and one line: an escape sequence in the message is not sent raw.
    PseudoTerminal again;
    write_to_terminals({again.path()}, ::geteuid(), "evil \x1b]0;pwned\x07 title");
    EXPECT_EQ(again.received().find('\x1b'), std::string::npos);
}

TEST(GuardTerminals, NothingIsWrittenToAFileOrAnotherUsersTerminal) {
    char path[] = "/tmp/gpukill-tty-XXXXXX";
    const int fd = ::mkstemp(path);
    ASSERT_GE(fd, 0);
    ::close(fd);
    // A regular file is never written to, even when named as a terminal.
    EXPECT_TRUE(write_to_terminals({path}, ::geteuid(), "hello").empty());
    struct stat info {};
    ASSERT_EQ(::stat(path, &info), 0);
    EXPECT_EQ(info.st_size, 0) << "the file was written to";
    ::unlink(path);
    // Another user's terminal: nothing sent, and nothing arrives.
    if (::geteuid() == 0) {
        PseudoTerminal theirs;
        ASSERT_EQ(::chown(theirs.path().c_str(), 4242, static_cast<gid_t>(-1)), 0);
        EXPECT_TRUE(write_to_terminals({theirs.path()}, ::geteuid(), "hello").empty());
        EXPECT_EQ(theirs.received(), "");
    }
    EXPECT_TRUE(write_to_terminals({"/dev/null"}, ::geteuid() + 1, "hello").empty());
}

}  // namespace
}  // namespace gpukill::engine

#include "cli/standard_streams.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "engine/outcome_codes.hpp"

namespace gpukill::cli {

void reserve_standard_descriptors() {
    for (int fd = 0; fd <= 2; ++fd) {
        if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
        // open() returns the lowest free descriptor: this one.
        const int opened = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (opened != fd && opened >= 0) ::close(opened);
    }
}

int finish_stdout(int code) {
    errno = 0;
    const bool flushed = std::fflush(stdout) == 0;
    const int flush_errno = errno;
    if (flushed && !std::ferror(stdout)) return code;
    if (flush_errno != 0) {
        std::fprintf(stderr, "gpukill: the output could not be written to stdout: %s\n",
                     std::strerror(flush_errno));
    } else {
        std::fprintf(stderr, "gpukill: the output could not be written to stdout\n");
    }
    return code == exit_code::ok ? exit_code::failure : code;
}

}  // namespace gpukill::cli

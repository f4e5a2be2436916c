#include "state/holder_lock.hpp"

#include <fcntl.h>

#include <cerrno>

namespace gpusim {

namespace {

struct flock byte_range(short type, std::uint64_t offset) {
    struct flock range {};
    range.l_type = type;
    range.l_whence = SEEK_SET;
    range.l_start = static_cast<off_t>(offset);
    range.l_len = 1;
    range.l_pid = 0;  // required to be 0 for OFD locks
    return range;
}

}  // namespace

Result<void> hold_byte(int fd, std::uint64_t offset) {
    struct flock range = byte_range(F_WRLCK, offset);
    if (::fcntl(fd, F_OFD_SETLK, &range) != 0) {
        return fail(kExitFailure,
                    "cannot lock allocation " + std::to_string(offset) + ": " + errno_text(errno));
    }
    return {};
}

bool byte_is_held(int fd, std::uint64_t offset) {
    // Probing for a read lock reports only write locks, the holders': a collector's claim
    // (a read lock) never makes a dead allocation look held to a concurrent reader.
    struct flock range = byte_range(F_RDLCK, offset);
    if (::fcntl(fd, F_OFD_GETLK, &range) != 0) return true;
    return range.l_type != F_UNLCK;
}

bool claim_free_byte(int fd, std::uint64_t offset) {
    struct flock range = byte_range(F_RDLCK, offset);
    return ::fcntl(fd, F_OFD_SETLK, &range) == 0;
}

}  // namespace gpusim

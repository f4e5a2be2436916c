#include "state/state_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>

#include <cerrno>

namespace gpusim {

Result<StateLock> StateLock::acquire(const Root& root) {
    auto fd = open_file(root.state_lock(), O_RDWR);
    if (!fd) return std::unexpected(fd.error());
    while (::flock(fd->get(), LOCK_EX) != 0) {
        if (errno != EINTR) {
            return fail(kExitFailure,
                        "cannot lock " + root.state_lock().string() + ": " + errno_text(errno));
        }
    }
    return StateLock(std::move(*fd));
}

std::optional<StateLock> StateLock::try_acquire(const Root& root) {
    // Read-only is enough for flock, so a reader of another user can still take it.
    auto fd = open_file(root.state_lock(), O_RDONLY);
    if (!fd) return std::nullopt;
    if (::flock(fd->get(), LOCK_EX | LOCK_NB) != 0) return std::nullopt;
    return StateLock(std::move(*fd));
}

}  // namespace gpusim

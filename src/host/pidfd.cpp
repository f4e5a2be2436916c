#include "host/pidfd.hpp"

#include <sys/syscall.h>
#include <unistd.h>

namespace gpukill {

int pidfd_open_process(pid_t pid) {
    return static_cast<int>(syscall(SYS_pidfd_open, pid, 0U));
}

int pidfd_signal(int pidfd, int signal) {
    return static_cast<int>(syscall(SYS_pidfd_send_signal, pidfd, signal, nullptr, 0U));
}

}  // namespace gpukill

// pidfd system calls. glibc 2.36's <sys/pidfd.h> lacks C++ linkage guards, so the
// calls are made through syscall(2) here, once.
#pragma once

#include <signal.h>
#include <sys/types.h>

namespace gpukill {

// A file descriptor bound to the process itself, not its number: it cannot come to
// refer to another process if the PID is reused. -1 with errno on failure
// (ESRCH: no such process).
int pidfd_open_process(pid_t pid);

// Sends `signal` through a pidfd. -1 with errno on failure (ESRCH: it has exited).
int pidfd_signal(int pidfd, int signal);

}  // namespace gpukill

#include "target_child.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gpukill::bench {
namespace {

// The parts every target shares. Returns false when the child must give up.
bool join_and_tie(const TargetChildSpec& spec) {
    // The parent also calls setpgid for this child; whichever runs first wins the race.
    if (::setpgid(0, spec.pgid) != 0) return false;
    // If the benchmark is killed outright (SIGKILL, OOM), nothing would clean up its
    // targets; the kernel does, here. The check after it closes the window in which the
    // parent died before the request was made.
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != spec.parent) return false;

    // The benchmark's own handlers (interrupt.cpp) are inherited by fork: a target that
    // kept them would only set a flag on SIGTERM instead of exiting.
    struct sigaction action {};
    sigemptyset(&action.sa_mask);
    action.sa_handler = SIG_DFL;
    ::sigaction(SIGINT, &action, nullptr);
    ::sigaction(SIGHUP, &action, nullptr);
    action.sa_handler = spec.on_term == OnTerm::ignore ? SIG_IGN : SIG_DFL;
    ::sigaction(SIGTERM, &action, nullptr);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);  // the reaper thread's mask is not ours
    return true;
}

void write_text(int fd, const char* text) {
    [[maybe_unused]] const ssize_t n = ::write(fd, text, std::strlen(text));
}

}  // namespace

void run_idle_target(const TargetChildSpec& spec) {
    if (!join_and_tie(spec)) ::_exit(1);
    // Ready only now: SIGTERM before this point would have met the benchmark's handler.
    const char byte = 'r';
    if (::write(spec.ready_fd, &byte, 1) != 1) ::_exit(1);
    // Inherited descriptors (other targets' pipes, the ready pipe) would keep their
    // readers from seeing EOF; an idle target needs none of them.
    ::close_range(3, ~0U, 0);
    ::prctl(PR_SET_NAME, "gpukill-target");
    for (;;) ::pause();  // no handler is installed, so only a fatal signal ends this
}

void exec_target(const TargetChildSpec& spec) {
    if (!join_and_tie(spec)) ::_exit(1);
    const int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd < 0 || ::dup2(null_fd, 0) < 0 || ::dup2(spec.output_fd, 1) < 0 ||
        ::dup2(spec.output_fd, 2) < 0) {
        ::_exit(127);
    }
    ::close_range(3, ~0U, 0);
    ::execve(spec.argv[0], spec.argv, spec.envp);
    const int error = errno;
    write_text(2, "cannot exec ");
    write_text(2, spec.argv[0]);
    write_text(2, ": ");
    // strerrordesc_np: a plain table lookup (strerror may translate, i.e. allocate).
    const char* description = ::strerrordesc_np(error);
    write_text(2, description != nullptr ? description : "unknown error");
    write_text(2, "\n");
    ::_exit(127);
}

}  // namespace gpukill::bench

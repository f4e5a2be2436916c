#include "subprocess.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "interrupt.hpp"
#include "scoped_fd.hpp"
#include "timing.hpp"

extern char** environ;

namespace gpukill::bench {
namespace {

ScopedFd memory_file(const char* name) {
    ScopedFd fd(::memfd_create(name, MFD_CLOEXEC));
    if (fd.get() < 0)
        throw std::runtime_error(std::string("memfd_create: ") + std::strerror(errno));
    return fd;
}

std::string read_all(int fd) {
    std::string text;
    char buffer[65536];
    ssize_t n = 0;
    while ((n = ::pread(fd, buffer, sizeof buffer, static_cast<off_t>(text.size()))) > 0) {
        text.append(buffer, static_cast<std::size_t>(n));
    }
    return text;
}

// posix_spawn file actions as an owned object.
class FileActions {
  public:
    FileActions() { ::posix_spawn_file_actions_init(&actions_); }
    ~FileActions() { ::posix_spawn_file_actions_destroy(&actions_); }
    FileActions(const FileActions&) = delete;
    FileActions& operator=(const FileActions&) = delete;
    posix_spawn_file_actions_t* get() { return &actions_; }

  private:
    posix_spawn_file_actions_t actions_{};
};

std::string variable_name(const std::string& assignment) {
    return assignment.substr(0, assignment.find('='));
}

}  // namespace

ProcessRun run_process(const std::vector<std::string>& argv, const std::vector<std::string>& envp) {
    const ScopedFd out = memory_file("stdout");
    const ScopedFd err = memory_file("stderr");
    FileActions actions;
    ::posix_spawn_file_actions_addopen(actions.get(), 0, "/dev/null", O_RDONLY, 0);
    ::posix_spawn_file_actions_adddup2(actions.get(), out.get(), 1);
    ::posix_spawn_file_actions_adddup2(actions.get(), err.get(), 2);
    const auto args = argv_pointers(argv);
    const auto env = argv_pointers(envp);

    ProcessRun run;
    const Stopwatch stopwatch;
    run.started_s = clock_s(CLOCK_MONOTONIC);
    pid_t pid = 0;
    const int spawn_error =
        ::posix_spawnp(&pid, args[0], actions.get(), nullptr, args.data(), env.data());
    if (spawn_error != 0) {
        throw std::runtime_error("cannot run " + argv[0] + ": " + std::strerror(spawn_error));
    }
    int status = 0;
    rusage usage{};
    while (::wait4(pid, &status, 0, &usage) < 0) {
        if (errno != EINTR) throw std::runtime_error(std::string("wait4: ") + std::strerror(errno));
        if (interrupt_signal() != 0) {
            ::kill(pid, SIGKILL);  // our own unreaped child
            while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
            }
            throw Interrupted();
        }
    }
    run.wall_s = stopwatch.elapsed_s();
    run.cpu_s = seconds(usage.ru_utime) + seconds(usage.ru_stime);
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    run.out = read_all(out.get());
    run.err = read_all(err.get());
    return run;
}

std::vector<char*> argv_pointers(const std::vector<std::string>& strings) {
    std::vector<char*> result;
    for (const auto& s : strings) result.push_back(const_cast<char*>(s.c_str()));
    result.push_back(nullptr);
    return result;
}

std::vector<std::string> environment_with(const std::vector<std::string>& set,
                                          const std::vector<std::string>& unset) {
    std::vector<std::string> names;
    for (const auto& assignment : set) names.push_back(variable_name(assignment));
    names.insert(names.end(), unset.begin(), unset.end());

    std::vector<std::string> result;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        const std::string assignment(*entry);
        if (std::find(names.begin(), names.end(), variable_name(assignment)) == names.end()) {
            result.push_back(assignment);
        }
    }
    result.insert(result.end(), set.begin(), set.end());
    return result;
}

}  // namespace gpukill::bench

#pragma once
// How a workload tells whoever started it that it is ready, or why it failed.
//
// In the foreground that is stdout (the ready line) and stderr (one error line). With
// --background the workload is a detached child whose stdio is /dev/null, so it reports
// through a pipe to the original gpusim process, which prints the same line and exits.

#include <string>
#include <string_view>

#include "state/error.hpp"

namespace gpusim {

class ReadyChannel {
  public:
    static ReadyChannel foreground() { return ReadyChannel(-1); }
    static ReadyChannel pipe(int write_fd) { return ReadyChannel(write_fd); }

    // Publishes the one ready line (without newline) and flushes it.
    void ready(std::string_view json_line);
    // Reports the error and returns its exit code.
    int error(const Error& error);
    // Forked workers must not hold the pipe: the waiting process reads until it closes.
    void close_in_worker();

  private:
    explicit ReadyChannel(int fd) : fd_(fd) {}
    void close();
    int fd_;
};

// Forks the workload off as a detached session leader. In the child, returns a channel to
// report through (and *is_child = true). In the original process, waits for the report,
// prints it the foreground way and returns the exit code (*is_child = false).
int detach_workload(ReadyChannel* child_channel, bool* is_child);

}  // namespace gpusim

#pragma once
// A `gpusim run` workload started by a test, and its cleanup.
//
// The test process becomes a child subreaper, so workers orphaned by their parent's death are
// re-parented to it and can be reaped. Every process is signalled through a pidfd taken while
// it was known alive, so a recycled pid is never hit. The destructor SIGKILLs and reaps
// whatever is left, even when an assertion failed half-way.

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace gpusim_test {

// One process of the workload: its pid and a pidfd for it.
class Tracked {
  public:
    Tracked(pid_t pid, int pidfd) : pid_(pid), pidfd_(pidfd) {}
    // Takes a pidfd for `pid`, which the caller knows is alive and cannot be reaped meanwhile.
    static Tracked open(pid_t pid);
    Tracked(Tracked&& other) noexcept;
    Tracked& operator=(Tracked&&) = delete;
    Tracked(const Tracked&) = delete;
    ~Tracked();

    pid_t pid() const { return pid_; }
    void signal(int signal_number) const;
    // Waits until the process has exited; reaps it when it is our child. Returns its wait
    // status when we reaped it, or -1 (exited and reaped elsewhere). nullopt: still running.
    std::optional<int> wait_exit(std::chrono::milliseconds deadline);
    bool exited() const;

  private:
    pid_t pid_;
    int pidfd_;
    bool gone_ = false;
};

class Workload {
  public:
    // Starts `gpusim COMMAND ARGS...` (`run`, or `observe`) and waits for its ready line
    // (bounded). On failure the object is not ready(): failure_text() says why (exit code,
    // stderr).
    explicit Workload(const std::vector<std::string>& run_args, bool wait_ready = true,
                      const std::string& command = "run");
    ~Workload();
    Workload(const Workload&) = delete;
    Workload& operator=(const Workload&) = delete;

    // Waits for the ready line if the constructor did not.
    bool await_ready(std::chrono::milliseconds deadline = std::chrono::seconds(10));
    bool ready() const { return ready_; }
    const std::string& failure_text() const { return failure_; }
    const std::string& ready_line() const { return ready_line_; }

    pid_t pid() const { return parent_->pid(); }
    unsigned long long start_time_ticks() const { return start_time_ticks_; }
    std::vector<pid_t> worker_pids() const;
    Tracked& parent() { return *parent_; }
    Tracked& worker(std::size_t i) { return workers_.at(i); }

    // SIGKILLs every worker and waits for each to be gone.
    void kill_workers();

  private:
    std::optional<Tracked> parent_;
    std::vector<Tracked> workers_;
    int stdout_fd_ = -1;
    int stderr_fd_ = -1;
    bool ready_ = false;
    std::string ready_line_;
    std::string failure_;
    unsigned long long start_time_ticks_ = 0;
};

// Makes this process a child subreaper (idempotent).
void become_subreaper();

// Bits of /proc/PID/status's mask line `field` (SigIgn, SigCgt, ...).
unsigned long long signal_mask(pid_t pid, const std::string& field);

std::string comm_of(pid_t pid);
std::string argv0_of(pid_t pid);

}  // namespace gpusim_test

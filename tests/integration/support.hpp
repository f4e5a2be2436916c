// Test support for integration tests: a simulated host (gpusim init) in a temp
// directory, real `gpusim run` workloads that are always cleaned up, and running
// the gpukill binary with the simulator's environment.
#pragma once

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpukill::testing {

struct CommandResult {
    int exit_code = -1;  // 128 + signal when killed
    std::string out;
    std::string err;
};

// Runs argv[0] with `env` added to this process's environment; no shell. With
// `as_uid` (tests running as root only) the command runs as that user.
CommandResult run_command(const std::vector<std::string>& argv,
                          const std::map<std::string, std::string>& env = {},
                          double timeout_seconds = 30, std::optional<uid_t> as_uid = std::nullopt);

// A command left running, read line by line: for tests that must act on what a
// process printed (e.g. interrupt a watch after its second frame), with no timing
// guesses. The destructor SIGKILLs and reaps it if it still runs.
class RunningCommand {
  public:
    RunningCommand(const std::vector<std::string>& argv,
                   const std::map<std::string, std::string>& env = {});
    ~RunningCommand();
    RunningCommand(const RunningCommand&) = delete;
    RunningCommand& operator=(const RunningCommand&) = delete;

    // The next line of stdout without its newline; empty optional on EOF or timeout.
    std::optional<std::string> read_line(double timeout_seconds = 10);
    pid_t pid() const { return pid_; }
    void send_signal(int signal);  // to this child only
    int wait();                    // exit code, 128 + signal when killed

  private:
    pid_t pid_ = -1;
    int out_fd_ = -1;
    std::string buffer_;
    bool reaped_ = false;
    int exit_code_ = -1;
};

// A workload process started by the test. The destructor SIGKILLs the parent and
// every worker it reported and reaps them: tests only ever signal what they started.
class Workload {
  public:
    Workload(pid_t pid, std::uint64_t start_time_ticks, std::vector<pid_t> workers,
             std::uint64_t memory_bytes);
    Workload(Workload&& other) noexcept;
    Workload& operator=(Workload&&) = delete;
    ~Workload();

    pid_t pid() const { return pid_; }
    std::uint64_t start_time_ticks() const { return start_time_ticks_; }
    const std::vector<pid_t>& workers() const { return workers_; }
    std::uint64_t memory_bytes() const { return memory_bytes_; }

    // SIGKILL the parent alone and reap it; its workers live on as orphans.
    void kill_parent();
    void kill_all();

  private:
    pid_t pid_;
    std::uint64_t start_time_ticks_;
    std::vector<pid_t> workers_;
    std::uint64_t memory_bytes_;
    bool parent_alive_ = true;
};

class SimulatedHost {
  public:
    // gpusim init --root <tempdir> [--scenario file with `scenario_yaml`]
    explicit SimulatedHost(const std::string& scenario_yaml = "");
    ~SimulatedHost();
    SimulatedHost(const SimulatedHost&) = delete;
    SimulatedHost& operator=(const SimulatedHost&) = delete;

    const std::string& root() const { return root_; }
    // The variables `gpusim env` prints, and GPUKILL_STATE_DIR and GPUKILL_RUNDIR next to
    // the simulated host.
    const std::map<std::string, std::string>& env() const { return env_; }
    // The simulated node's run directory (GPUKILL_RUNDIR), where container runtimes'
    // bundles are laid out; it does not exist until a test writes one.
    std::string rundir() const { return env_.at("GPUKILL_RUNDIR"); }

    // gpusim run --root ROOT <args>, waiting for its ready line.
    Workload run(const std::vector<std::string>& args);
    // The same through `program`, a copy of gpusim (renamed, relocated): `program run ...`.
    Workload run_program(const std::string& program, const std::vector<std::string>& args);
    // The same under `launcher`, a command that execs the rest of its arguments
    // (setpriv --reuid=U ..., env NAME=VALUE ...): gpusim keeps the PID it starts with.
    Workload run_via(const std::vector<std::string>& launcher,
                     const std::vector<std::string>& args);
    // The same with `program`, a copy of gpusim, in place of gpusim.
    Workload run_program_via(const std::vector<std::string>& launcher, const std::string& program,
                             const std::vector<std::string>& args);
    void leak(unsigned gpu, const std::string& size);
    // gpusim observe --root ROOT <args>: a monitoring client holding the GPUs' device
    // files as NVML does (nvidia-persistenced, DCGM), waiting for its ready line.
    Workload observe(const std::vector<std::string>& args = {});

    CommandResult gpukill(const std::vector<std::string>& args,
                          const std::map<std::string, std::string>& extra_env = {}) const;
    nlohmann::json list_json(const std::vector<std::string>& extra_args = {}) const;

  private:
    // Starts argv (which runs `gpusim run`) and waits for its ready line.
    Workload start_workload(const std::vector<std::string>& argv);

    std::string root_;
    std::map<std::string, std::string> env_;
};

bool process_alive(pid_t pid);  // exists and is not a zombie

// The records of the host's action log (GPUKILL_STATE_DIR/audit.jsonl) whose target is
// `pid`, in order; a line not yet whole is skipped.
std::vector<nlohmann::json> audit_records_about(const SimulatedHost& host, pid_t pid);
// Waits until the action log holds an `event` record about `pid`: read again every
// 10 ms, for at most `timeout_seconds`. Whether it came.
bool wait_for_audit_record(const SimulatedHost& host, const std::string& event, pid_t pid,
                           double timeout_seconds = 10);

// Lets other users use the simulated host (its devices, its state files, the NVML
// library path): the test tree only, made by this test.
void open_host_to_all_users(const SimulatedHost& host);
std::string current_user_name();

}  // namespace gpukill::testing

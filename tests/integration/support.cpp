#include "support.hpp"

#include "host/pidfd.hpp"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace gpukill::testing {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<char*> to_c_strings(std::vector<std::string>& strings) {
    std::vector<char*> pointers;
    for (std::string& s : strings) pointers.push_back(s.data());
    pointers.push_back(nullptr);
    return pointers;
}

std::vector<std::string> merged_environment(const std::map<std::string, std::string>& extra) {
    std::map<std::string, std::string> all;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        std::string text(*entry);
        auto eq = text.find('=');
        if (eq != std::string::npos) all[text.substr(0, eq)] = text.substr(eq + 1);
    }
    for (const auto& [key, value] : extra) {
        if (value.empty()) {
            all.erase(key);  // an empty value means "unset" in tests
        } else {
            all[key] = value;
        }
    }
    std::vector<std::string> result;
    for (const auto& [key, value] : all) result.push_back(key + "=" + value);
    return result;
}

// fork + exec with stdout/stderr pipes; returns the pid and the read ends.
pid_t spawn(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
            int& out_fd, int& err_fd, std::optional<uid_t> as_uid = std::nullopt) {
    int out_pipe[2];
    int err_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
        throw std::runtime_error("pipe failed");
    }
    std::vector<std::string> args = argv;
    std::vector<std::string> environment = merged_environment(env);
    std::vector<char*> c_args = to_c_strings(args);
    std::vector<char*> c_env = to_c_strings(environment);
    pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        dup2(out_pipe[1], STDOUT_FILENO);
        dup2(err_pipe[1], STDERR_FILENO);
        int null_fd = open("/dev/null", O_RDONLY);
        if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
        if (as_uid &&
            (setgroups(0, nullptr) != 0 || setgid(*as_uid) != 0 || setuid(*as_uid) != 0)) {
            _exit(126);
        }
        execve(c_args[0], c_args.data(), c_env.data());
        _exit(127);
    }
    close(out_pipe[1]);
    close(err_pipe[1]);
    out_fd = out_pipe[0];
    err_fd = err_pipe[0];
    return pid;
}

int decode_status(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return -1;
}

// Waits up to `seconds` for the process behind `pidfd` to exit.
bool wait_exit(int pidfd, double seconds) {
    pollfd p{.fd = pidfd, .events = POLLIN, .revents = 0};
    return poll(&p, 1, static_cast<int>(seconds * 1000)) == 1;
}

}  // namespace

CommandResult run_command(const std::vector<std::string>& argv,
                          const std::map<std::string, std::string>& env, double timeout_seconds,
                          std::optional<uid_t> as_uid) {
    int out_fd = -1;
    int err_fd = -1;
    pid_t pid = spawn(argv, env, out_fd, err_fd, as_uid);
    CommandResult result;
    auto deadline = Clock::now() + std::chrono::duration<double>(timeout_seconds);
    std::array<pollfd, 2> fds = {{{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}}};
    std::array<std::string*, 2> sinks = {&result.out, &result.err};
    int open_fds = 2;
    bool timed_out = false;
    while (open_fds > 0) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) {
            timed_out = true;
            break;
        }
        if (poll(fds.data(), fds.size(), static_cast<int>(left.count())) < 0 && errno != EINTR) {
            break;
        }
        for (std::size_t i = 0; i < fds.size(); ++i) {
            if (fds[i].fd < 0 || fds[i].revents == 0) continue;
            std::array<char, 65536> buffer;
            ssize_t n = read(fds[i].fd, buffer.data(), buffer.size());
            if (n > 0) {
                sinks[i]->append(buffer.data(), static_cast<std::size_t>(n));
            } else {
                close(fds[i].fd);
                fds[i].fd = -1;
                --open_fds;
            }
        }
    }
    if (timed_out) kill(pid, SIGKILL);  // our own child, never anything else
    for (auto& f : fds) {
        if (f.fd >= 0) close(f.fd);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    result.exit_code = timed_out ? -1 : decode_status(status);
    return result;
}

RunningCommand::RunningCommand(const std::vector<std::string>& argv,
                               const std::map<std::string, std::string>& env) {
    int err_fd = -1;
    pid_ = spawn(argv, env, out_fd_, err_fd);
    close(err_fd);
}

RunningCommand::~RunningCommand() {
    if (!reaped_) {
        kill(pid_, SIGKILL);  // our own child, not yet reaped: its PID cannot be reused
        waitpid(pid_, nullptr, 0);
    }
    if (out_fd_ >= 0) close(out_fd_);
}

std::optional<std::string> RunningCommand::read_line(double timeout_seconds) {
    auto deadline = Clock::now() + std::chrono::duration<double>(timeout_seconds);
    while (buffer_.find('\n') == std::string::npos) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) return std::nullopt;
        pollfd p{out_fd_, POLLIN, 0};
        if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
        std::array<char, 65536> chunk;
        ssize_t n = read(out_fd_, chunk.data(), chunk.size());
        if (n <= 0) return std::nullopt;
        buffer_.append(chunk.data(), static_cast<std::size_t>(n));
    }
    auto newline = buffer_.find('\n');
    std::string line = buffer_.substr(0, newline);
    buffer_.erase(0, newline + 1);
    return line;
}

void RunningCommand::send_signal(int signal) {
    if (!reaped_) kill(pid_, signal);
}

int RunningCommand::wait() {
    if (!reaped_) {
        int status = 0;
        waitpid(pid_, &status, 0);
        exit_code_ = decode_status(status);
        reaped_ = true;
    }
    return exit_code_;
}

Workload::Workload(pid_t pid, std::uint64_t start_time_ticks, std::vector<pid_t> workers,
                   std::uint64_t memory_bytes)
    : pid_(pid),
      start_time_ticks_(start_time_ticks),
      workers_(std::move(workers)),
      memory_bytes_(memory_bytes) {}

Workload::Workload(Workload&& other) noexcept
    : pid_(other.pid_),
      start_time_ticks_(other.start_time_ticks_),
      workers_(std::move(other.workers_)),
      memory_bytes_(other.memory_bytes_),
      parent_alive_(other.parent_alive_) {
    other.pid_ = 0;
    other.workers_.clear();
    other.parent_alive_ = false;
}

Workload::~Workload() {
    kill_all();
}

void Workload::kill_parent() {
    if (!parent_alive_ || pid_ <= 0) return;
    // The parent is our child: it cannot be reaped (and its PID reused) behind our back.
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
    parent_alive_ = false;
}

void Workload::kill_all() {
    // Workers are bound by pidfd before signalling; one that is already gone
    // (pidfd_open fails) is never signalled by number.
    std::vector<int> pidfds;
    for (pid_t worker : workers_) {
        int fd = pidfd_open_process(worker);
        if (fd >= 0) pidfds.push_back(fd);
    }
    kill_parent();
    for (int fd : pidfds) {
        pidfd_signal(fd, SIGKILL);
        wait_exit(fd, 5);
        close(fd);
    }
    // Orphaned workers are init's children now; init reaps them.
    workers_.clear();
}

SimulatedHost::SimulatedHost(const std::string& scenario_yaml) {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpukill-it-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    std::string base = pattern;
    root_ = base + "/host";
    std::vector<std::string> init = {GPUSIM_BIN, "init", "--root", root_};
    if (!scenario_yaml.empty()) {
        std::string scenario = base + "/scenario.yaml";
        std::ofstream(scenario) << scenario_yaml;
        init.push_back("--scenario");
        init.push_back(scenario);
    }
    CommandResult r = run_command(init);
    if (r.exit_code != 0) throw std::runtime_error("gpusim init failed: " + r.err);
    CommandResult env = run_command({GPUSIM_BIN, "env", "--root", root_});
    std::istringstream lines(env.out);
    for (std::string line; std::getline(lines, line);) {
        // export NAME='value'
        if (line.rfind("export ", 0) != 0) continue;
        auto eq = line.find('=');
        std::string key = line.substr(7, eq - 7);
        std::string value = line.substr(eq + 1);
        if (value.size() >= 2 && value.front() == '\'' && value.back() == '\'') {
            value = value.substr(1, value.size() - 2);
        }
        env_[key] = value;
    }
    if (env_.count("GPUKILL_NVML_LIBRARY") == 0) {
        throw std::runtime_error("gpusim env printed no GPUKILL_NVML_LIBRARY: " + env.out);
    }
    // State (audit log, usage history) next to the simulated host, never the real
    // /var/lib/gpukill; a test may still pass its own with --state-dir or extra_env.
    env_.emplace("GPUKILL_STATE_DIR", base + "/state");
    // The host's run directory is the simulated node's too: containerd's and CRI-O's
    // bundles are what a test lays out there (cri_node.hpp), never this machine's.
    env_.emplace("GPUKILL_RUNDIR", base + "/run");
}

SimulatedHost::~SimulatedHost() {
    std::error_code ignored;
    std::filesystem::remove_all(std::filesystem::path(root_).parent_path(), ignored);
}

Workload SimulatedHost::run(const std::vector<std::string>& args) {
    return run_program(GPUSIM_BIN, args);
}

Workload SimulatedHost::run_program(const std::string& program,
                                    const std::vector<std::string>& args) {
    std::vector<std::string> argv = {program, "run", "--root", root_};
    argv.insert(argv.end(), args.begin(), args.end());
    return start_workload(argv);
}

Workload SimulatedHost::run_via(const std::vector<std::string>& launcher,
                                const std::vector<std::string>& args) {
    return run_program_via(launcher, GPUSIM_BIN, args);
}

Workload SimulatedHost::run_program_via(const std::vector<std::string>& launcher,
                                        const std::string& program,
                                        const std::vector<std::string>& args) {
    std::vector<std::string> argv = launcher;
    for (const std::string& word : {program, std::string("run"), std::string("--root"), root_}) {
        argv.push_back(word);
    }
    argv.insert(argv.end(), args.begin(), args.end());
    return start_workload(argv);
}

Workload SimulatedHost::start_workload(const std::vector<std::string>& argv) {
    int out_fd = -1;
    int err_fd = -1;
    pid_t pid = spawn(argv, {}, out_fd, err_fd);
    close(err_fd);
    // Wait for the ready line: never sleep for luck.
    std::string line;
    auto deadline = Clock::now() + std::chrono::seconds(10);
    while (line.find('\n') == std::string::npos && Clock::now() < deadline) {
        pollfd p{out_fd, POLLIN, 0};
        if (poll(&p, 1, 1000) <= 0) continue;
        std::array<char, 4096> buffer;
        ssize_t n = read(out_fd, buffer.data(), buffer.size());
        if (n <= 0) break;
        line.append(buffer.data(), static_cast<std::size_t>(n));
    }
    close(out_fd);
    if (line.find('\n') == std::string::npos) {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
        throw std::runtime_error("gpusim run gave no ready line");
    }
    auto ready = nlohmann::json::parse(line.substr(0, line.find('\n')));
    std::vector<pid_t> workers = ready.value("workers", std::vector<pid_t>{});
    EXPECT_EQ(ready["pid"].get<pid_t>(), pid);
    return Workload(pid, ready["start_time_ticks"].get<std::uint64_t>(), workers,
                    ready.value("memory_bytes", std::uint64_t{0}));  // none for --drm
}

Workload SimulatedHost::observe(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {GPUSIM_BIN, "observe", "--root", root_};
    argv.insert(argv.end(), args.begin(), args.end());
    return start_workload(argv);
}

void SimulatedHost::leak(unsigned gpu, const std::string& size) {
    CommandResult r = run_command(
        {GPUSIM_BIN, "leak", "--root", root_, "--gpu", std::to_string(gpu), "--mem", size});
    if (r.exit_code != 0) throw std::runtime_error("gpusim leak failed: " + r.err);
}

CommandResult SimulatedHost::gpukill(const std::vector<std::string>& args,
                                     const std::map<std::string, std::string>& extra_env) const {
    std::vector<std::string> argv = {GPUKILL_BIN};
    argv.insert(argv.end(), args.begin(), args.end());
    std::map<std::string, std::string> env = env_;
    for (const auto& [key, value] : extra_env) env[key] = value;
    return run_command(argv, env);
}

nlohmann::json SimulatedHost::list_json(const std::vector<std::string>& extra_args) const {
    std::vector<std::string> args = {"list", "--json"};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    CommandResult r = gpukill(args);
    if (r.exit_code != 0) throw std::runtime_error("gpukill list failed: " + r.err);
    return nlohmann::json::parse(r.out);
}

bool process_alive(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    if (text.empty()) return false;
    auto close_paren = text.rfind(')');
    return close_paren != std::string::npos && close_paren + 2 < text.size() &&
           text[close_paren + 2] != 'Z';
}

std::vector<nlohmann::json> audit_records_about(const SimulatedHost& host, pid_t pid) {
    std::ifstream log(host.env().at("GPUKILL_STATE_DIR") + "/audit.jsonl");
    std::vector<nlohmann::json> records;
    for (std::string line; std::getline(log, line);) {
        nlohmann::json record = nlohmann::json::parse(line, nullptr, false);
        if (record.is_discarded() || !record.contains("target")) continue;
        if (record["target"].value("pid", 0) == pid) records.push_back(std::move(record));
    }
    return records;
}

bool wait_for_audit_record(const SimulatedHost& host, const std::string& event, pid_t pid,
                           double timeout_seconds) {
    const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_seconds);
    for (;;) {
        for (const nlohmann::json& record : audit_records_about(host, pid)) {
            if (record["event"] == event) return true;
        }
        if (Clock::now() >= deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));  // polled, bounded
    }
}

std::string current_user_name() {
    passwd* entry = getpwuid(getuid());
    return entry != nullptr ? entry->pw_name : std::to_string(getuid());
}

// Lets other users use the simulated host (its devices, its state files, the NVML
// library path): the test tree only, made by this test.
void open_host_to_all_users(const SimulatedHost& host) {
    namespace fs = std::filesystem;
    const fs::path base = fs::path(host.root()).parent_path();
    fs::permissions(base, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
    for (const auto& entry : fs::recursive_directory_iterator(host.root())) {
        if (entry.is_symlink()) continue;
        const fs::perms extra = entry.is_directory()
                                    ? fs::perms::all
                                    : fs::perms::owner_read | fs::perms::owner_write |
                                          fs::perms::group_read | fs::perms::group_write |
                                          fs::perms::others_read | fs::perms::others_write;
        fs::permissions(entry.path(), extra, fs::perm_options::add);
    }
    fs::permissions(host.root(), fs::perms::all, fs::perm_options::add);
}

}  // namespace gpukill::testing

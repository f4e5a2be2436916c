#include "slurm_controller.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "support.hpp"

namespace gpukill::testing {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kMunged = "/usr/sbin/munged";
constexpr const char* kMungekey = "/usr/sbin/mungekey";
constexpr const char* kSlurmctld = "/usr/sbin/slurmctld";
constexpr const char* kScontrol = "/usr/bin/scontrol";
constexpr const char* kSbatch = "/usr/bin/sbatch";

int free_loopback_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
        throw std::runtime_error("no free loopback port");
    }
    ::close(fd);
    return ntohs(address.sin_port);
}

pid_t start_daemon(const std::vector<std::string>& argv, const std::string& log,
                   const std::map<std::string, std::string>& env) {
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        for (const auto& [key, value] : env) ::setenv(key.c_str(), value.c_str(), 1);
        const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        if (out >= 0) {
            ::dup2(out, STDOUT_FILENO);
            ::dup2(out, STDERR_FILENO);
        }
        ::execv(args[0], args.data());
        ::_exit(127);
    }
    return pid;
}

void stop(pid_t pid) {
    if (pid <= 0) return;
    ::kill(pid, SIGTERM);
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    while (Clock::now() < deadline) {
        if (::waitpid(pid, nullptr, WNOHANG) == pid) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
}

// Polls `ready` every 50 ms until it holds or `seconds` pass: a daemon's readiness, not
// a guess at how long it takes.
template <typename Ready>
bool wait_until(double seconds, Ready&& ready) {
    const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
    while (Clock::now() < deadline) {
        if (ready()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return ready();
}

}  // namespace

SlurmController::SlurmController() {
    if (::geteuid() != 0) {
        unavailable_ = "needs root to run slurmctld and munged";
        return;
    }
    for (const char* program : {kMunged, kMungekey, kSlurmctld, kScontrol, kSbatch}) {
        if (::access(program, X_OK) != 0) {
            unavailable_ = std::string(program) + " is not installed (scripts/setup.sh)";
            return;
        }
    }
    char pattern[] = "/tmp/gpukill-slurm-XXXXXX";
    if (::mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = pattern;
    fs::create_directories(dir_ + "/state");
    fs::create_directories(dir_ + "/spool");
    const std::string key = dir_ + "/munge.key";
    const std::string socket = dir_ + "/munge.socket";
    CommandResult made = run_command({kMungekey, "--create", "--keyfile", key});
    if (made.exit_code != 0) throw std::runtime_error("mungekey failed: " + made.err);
    munged_ = start_daemon({kMunged, "--foreground", "--force", "--key-file=" + key,
                            "--socket=" + socket, "--pid-file=" + dir_ + "/munged.pid",
                            "--log-file=" + dir_ + "/munged.log", "--seed-file=" + dir_ + "/seed"},
                           dir_ + "/munged.out", {});
    if (!wait_until(10, [&] { return fs::exists(socket); })) {
        throw std::runtime_error("munged did not open its socket");
    }

    conf_ = dir_ + "/slurm.conf";
    // Job ids unique to this test process: the cgroups named after them are too.
    const long first_job = 100000 + static_cast<long>(::getpid()) % 800000 * 4;
    std::ofstream(conf_) << "ClusterName=gpukilltest\n"
                         << "SlurmctldHost=localhost\n"
                         << "SlurmctldPort=" << free_loopback_port() << "\n"
                         << "SlurmdPort=" << free_loopback_port() << "\n"
                         << "AuthType=auth/munge\nCredType=cred/munge\n"
                         << "AuthInfo=socket=" << socket << "\n"
                         << "SlurmUser=root\n"
                         << "StateSaveLocation=" << dir_ << "/state\n"
                         << "SlurmdSpoolDir=" << dir_ << "/spool\n"
                         << "SlurmctldPidFile=" << dir_ << "/slurmctld.pid\n"
                         << "SlurmctldLogFile=" << dir_ << "/slurmctld.log\n"
                         << "FirstJobId=" << first_job << "\n"
                         << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
                         << "SchedulerType=sched/builtin\nSelectType=select/linear\n"
                         << "JobCompType=jobcomp/none\n"
                         << "AccountingStorageType=accounting_storage/none\n"
                         << "MpiDefault=none\nReturnToService=2\n"
                         << "NodeName=localhost CPUs=1 State=UNKNOWN\n"
                         << "PartitionName=debug Nodes=localhost Default=YES State=UP\n";
    slurmctld_ =
        start_daemon({kSlurmctld, "-D", "-i", "-f", conf_}, dir_ + "/slurmctld.out", env());
    if (!wait_until(20, [&] {
            return run_command({kScontrol, "ping"}, env(), 5).out.find("is UP") !=
                   std::string::npos;
        })) {
        throw std::runtime_error("slurmctld did not answer scontrol ping (see " + dir_ + ")");
    }
}

SlurmController::~SlurmController() {
    stop(slurmctld_);
    stop(munged_);
    if (!dir_.empty()) {
        std::error_code ignored;
        fs::remove_all(dir_, ignored);
    }
}

std::string SlurmController::submit_held(const std::string& account) {
    CommandResult submitted = run_command({kSbatch, "--hold", "--parsable", "--account=" + account,
                                           "--output=/dev/null", "--chdir=" + dir_, "--wrap=true"},
                                          env());
    if (submitted.exit_code != 0) throw std::runtime_error("sbatch failed: " + submitted.err);
    std::string id = submitted.out.substr(0, submitted.out.find_first_of(";\n"));
    if (id.empty()) throw std::runtime_error("sbatch printed no job id");
    return id;
}

}  // namespace gpukill::testing

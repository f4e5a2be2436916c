// Helpers for the `gpukill audit` integration tests: workloads of another user, the
// history's environment, and running gpukill as another user.
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "support.hpp"

namespace gpukill::testing {

inline constexpr uid_t kNobody = 65534;

// Every sample kept: list runs a few milliseconds apart each count.
inline std::map<std::string, std::string> every_sample() {
    return {{"GPUKILL_HISTORY_MIN_INTERVAL_SECONDS", "0"}};
}

inline std::string state_dir(const SimulatedHost& host) {
    return host.env().at("GPUKILL_STATE_DIR");
}

inline std::uint64_t start_time_of(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto close = text.rfind(')');
    if (close == std::string::npos) return 0;
    std::istringstream fields(text.substr(close + 2));
    std::string field;
    for (int i = 3; i <= 22 && fields >> field; ++i) {
        if (i == 22) return std::stoull(field);
    }
    return 0;
}

// `gpusim run ... --background` as another user. The workload is not our child, so it
// is bound by pidfd at once, checked against the start time it reported, and only ever
// signalled through that pidfd.
class ForeignWorkload {
  public:
    ForeignWorkload(const SimulatedHost& host, uid_t uid, std::vector<std::string> args) {
        std::vector<std::string> argv = {GPUSIM_BIN, "run", "--root", host.root()};
        argv.insert(argv.end(), args.begin(), args.end());
        argv.push_back("--background");
        CommandResult r = run_command(argv, {}, 30, uid);
        if (r.exit_code != 0) throw std::runtime_error("gpusim run as another user: " + r.err);
        auto ready = nlohmann::json::parse(r.out.substr(0, r.out.find('\n')));
        pid_ = ready["pid"].get<pid_t>();
        pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
        if (pidfd_ < 0 || start_time_of(pid_) != ready["start_time_ticks"].get<std::uint64_t>()) {
            throw std::runtime_error("the background workload is gone before it was bound");
        }
    }
    ~ForeignWorkload() {
        ::syscall(SYS_pidfd_send_signal, pidfd_, SIGKILL, nullptr, 0);
        pollfd p{pidfd_, POLLIN, 0};
        ::poll(&p, 1, 5000);  // readable once it has exited
        ::close(pidfd_);
    }
    ForeignWorkload(const ForeignWorkload&) = delete;
    ForeignWorkload& operator=(const ForeignWorkload&) = delete;
    pid_t pid() const { return pid_; }

  private:
    pid_t pid_ = 0;
    int pidfd_ = -1;
};

// gpukill as another user, with the simulated host's environment.
inline CommandResult gpukill_as(const SimulatedHost& host, uid_t uid,
                                const std::vector<std::string>& args,
                                const std::map<std::string, std::string>& extra_env = {}) {
    std::vector<std::string> argv = {GPUKILL_BIN};
    argv.insert(argv.end(), args.begin(), args.end());
    std::map<std::string, std::string> env = host.env();
    for (const auto& [key, value] : extra_env) env[key] = value;
    return run_command(argv, env, 30, uid);
}

inline nlohmann::json parse_json(const CommandResult& r) {
    if (r.exit_code != 0) {
        throw std::runtime_error("gpukill failed (" + std::to_string(r.exit_code) + "): " + r.err);
    }
    return nlohmann::json::parse(r.out);
}

}  // namespace gpukill::testing

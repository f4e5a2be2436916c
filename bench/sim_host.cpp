#include "sim_host.hpp"

#include <poll.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <sstream>
#include <stdexcept>

#include "interrupt.hpp"
#include "os_failure.hpp"
#include "subprocess.hpp"
#include "timing.hpp"

namespace gpukill::bench {
namespace {

// A gpusim workload is ready within milliseconds; this only bounds a hang.
constexpr double kReadyTimeoutS = 20;

ProcessRun run_checked(const std::vector<std::string>& argv) {
    ProcessRun run = run_process(argv, environment_with({}, {}));
    if (run.exit_code != 0) {
        std::string command;
        for (const auto& word : argv) command += (command.empty() ? "" : " ") + word;
        throw std::runtime_error(command + " exited with " + std::to_string(run.exit_code) + ": " +
                                 run.err.substr(0, 500));
    }
    return run;
}

// One value of `gpusim env`, which writes it in POSIX single quotes: 'a'\''b' is a'b.
std::string unquote(const std::string& quoted) {
    std::string value;
    bool inside = false;
    for (std::size_t i = 0; i < quoted.size(); ++i) {
        const char c = quoted[i];
        if (c == '\'') {
            inside = !inside;
        } else if (c == '\\' && !inside && i + 1 < quoted.size()) {
            value += quoted[++i];
        } else {
            value += c;
        }
    }
    return value;
}

// `export K='V'` lines -> "K=V".
std::vector<std::string> parse_env(const std::string& text) {
    std::vector<std::string> result;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        const std::string prefix = "export ";
        const auto equals = line.find('=');
        if (line.rfind(prefix, 0) != 0 || equals == std::string::npos) continue;
        result.push_back(line.substr(prefix.size(), equals - prefix.size()) + "=" +
                         unquote(line.substr(equals + 1)));
    }
    return result;
}

// Reads one line from `fd` (the workload's stdout and stderr): its ready line, or the
// error it died with. Empty at EOF without a newline.
std::string read_line(int fd, pid_t pid) {
    std::string text;
    const Stopwatch stopwatch;
    while (text.find('\n') == std::string::npos) {
        const double left_s = kReadyTimeoutS - stopwatch.elapsed_s();
        if (left_s <= 0) {
            throw std::runtime_error("gpusim workload " + std::to_string(pid) +
                                     " printed no ready line in " +
                                     std::to_string(static_cast<int>(kReadyTimeoutS)) + " s");
        }
        pollfd entry{.fd = fd, .events = POLLIN, .revents = 0};
        const int ready = ::poll(&entry, 1, static_cast<int>(left_s * 1000) + 1);
        if (ready < 0) {
            if (errno != EINTR) throw os_failure("poll", errno);
            throw_if_interrupted();
            continue;
        }
        if (ready == 0) continue;  // timed out: the check above says so
        char buffer[512];
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR) continue;
            throw os_failure("read", errno);
        }
        text.append(buffer, static_cast<std::size_t>(n));
    }
    return text.substr(0, text.find('\n'));
}

}  // namespace

SimHost::SimHost(std::string gpusim, std::string root)
    : gpusim_(std::move(gpusim)), root_(std::move(root)) {
    run_checked({gpusim_, "init", "--root", root_});
    env_ = parse_env(run_checked({gpusim_, "env", "--root", root_}).out);
    // gpusim env may name more (the sysfs root, nvidia-smi); these three it must.
    for (const char* name : {"GPUKILL_NVML_LIBRARY", "GPUKILL_DEVFS", "GPUSIM_ROOT"}) {
        const std::string prefix = std::string(name) + "=";
        if (std::none_of(env_.begin(), env_.end(),
                         [&](const std::string& entry) { return entry.rfind(prefix, 0) == 0; })) {
            throw std::runtime_error(std::string("gpusim env did not print ") + name);
        }
    }
}

std::vector<pid_t> SimHost::start(TargetGroup& group, const std::vector<WorkloadSpec>& specs) {
    const auto env = environment_with({}, {});
    std::vector<SpawnedTarget> spawned;
    // All spawned first, then all awaited: they set up in parallel.
    for (const WorkloadSpec& spec : specs) {
        throw_if_interrupted();
        std::vector<std::string> argv = {gpusim_, "run",      "--root",
                                         root_,   "--gpu",    std::to_string(spec.gpu),
                                         "--mem", spec.memory};
        if (spec.on_term == OnTerm::ignore) argv.emplace_back("--ignore-term");
        spawned.push_back(group.spawn(argv, env));
    }
    std::vector<pid_t> pids;
    for (SpawnedTarget& target : spawned) {
        const std::string line = read_line(target.output.get(), target.pid);
        // The workload prints nothing after its ready line; closing our end now keeps the
        // benchmark's descriptors few (a later write would end it with SIGPIPE, which the
        // exit check would report).
        target.output.reset();
        const auto ready = nlohmann::json::parse(line, nullptr, false);
        if (ready.is_discarded() || !ready.contains("pid")) {
            throw std::runtime_error("gpusim workload " + std::to_string(target.pid) +
                                     " failed: " + line);
        }
        // Not --background, so the process we forked is the one the driver lists.
        if (ready.at("pid").get<pid_t>() != target.pid) {
            throw std::runtime_error("gpusim reported pid " + ready.at("pid").dump() +
                                     ", expected " + std::to_string(target.pid));
        }
        pids.push_back(target.pid);
    }
    return pids;
}

std::uint64_t SimHost::memory_used() const {
    const auto status =
        nlohmann::json::parse(run_checked({gpusim_, "status", "--root", root_, "--json"}).out);
    std::uint64_t used = 0;
    for (const auto& gpu : status.at("gpus"))
        used += gpu.at("memory_used_bytes").get<std::uint64_t>();
    return used;
}

}  // namespace gpukill::bench

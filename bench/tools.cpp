#include "tools.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <sstream>
#include <stdexcept>

#include "host/fd_sweep.hpp"
#include "proc_fd_walk.hpp"
#include "subprocess.hpp"
#include "timing.hpp"

namespace gpukill::bench {
namespace {

std::vector<pid_t> sorted(std::vector<pid_t> pids) {
    std::sort(pids.begin(), pids.end());
    return pids;
}

// PIDs at the start of whitespace-separated tokens: fuser prints "  1234" on stdout
// (access letters go to stderr, but older versions appended them), the floor "1234 ".
std::vector<pid_t> leading_pids(const std::string& text) {
    std::vector<pid_t> pids;
    std::istringstream in(text);
    for (std::string token; in >> token;) {
        pid_t pid = 0;
        const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), pid);
        if (ec == std::errc{} && end != token.data()) pids.push_back(pid);
    }
    pids = sorted(std::move(pids));
    pids.erase(std::unique(pids.begin(), pids.end()), pids.end());  // fuser: once per file
    return pids;
}

void require_exit(const ProcessRun& run, int expected, const std::string& command) {
    if (run.exit_code == expected) return;
    throw std::runtime_error(command + " exited with " + std::to_string(run.exit_code) +
                             " (expected " + std::to_string(expected) +
                             "): " + run.err.substr(0, 500));
}

std::string join(const std::vector<std::string>& words) {
    std::string text;
    for (const auto& word : words) text += (text.empty() ? "" : " ") + word;
    return text;
}

Sample sweep_in_process(const Population& population) {
    HostRoots roots;
    roots.devfs = population.devfs();
    const Stopwatch stopwatch;
    const SweepResult result = sweep_device_holders(roots);
    Sample sample{stopwatch.elapsed_s(), stopwatch.cpu_elapsed_s(), {}};

    if (result.error) throw std::runtime_error("sweep_device_holders: " + result.error->what);
    // Beyond the PIDs: each holder must carry exactly the nodes it opened.
    for (const DeviceHolder& holder : result.holders) {
        sample.holders.push_back(holder.pid);
        const auto expected = population.expected_holders().find(holder.pid);
        if (expected == population.expected_holders().end()) continue;  // reported by caller
        std::vector<std::string> nodes;
        for (const DeviceNode& node : holder.nodes) nodes.push_back(node.relative_path);
        std::sort(nodes.begin(), nodes.end());
        if (nodes != expected->second) {
            throw std::runtime_error("sweep_device_holders: PID " + std::to_string(holder.pid) +
                                     " holds " + std::to_string(expected->second.size()) +
                                     " nodes, the sweep reported " + std::to_string(nodes.size()));
        }
    }
    sample.holders = sorted(std::move(sample.holders));
    return sample;
}

Sample floor_in_process(const Population& population) {
    const std::string prefix = population.devfs() + "/";
    const Stopwatch stopwatch;
    FloorResult result = walk_proc_fds("/proc", prefix);
    return Sample{stopwatch.elapsed_s(), stopwatch.cpu_elapsed_s(), std::move(result.holder_pids)};
}

Sample gpukill_list(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
    const ProcessRun run = run_process(argv, env);
    require_exit(run, 0, join(argv));
    std::vector<pid_t> pids;
    const auto document = nlohmann::json::parse(run.out);
    for (const auto& process : document.at("processes"))
        pids.push_back(process.at("pid").get<pid_t>());
    return Sample{run.wall_s, run.cpu_s, sorted(std::move(pids))};
}

Sample floor_subprocess(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
    const ProcessRun run = run_process(argv, env);
    require_exit(run, 0, join(argv));
    // The first line holds the PIDs, the second the counts.
    return Sample{run.wall_s, run.cpu_s, leading_pids(run.out.substr(0, run.out.find('\n')))};
}

Sample fuser(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
    const ProcessRun run = run_process(argv, env);
    require_exit(run, 0, join(argv));  // 0: at least one process found
    // stdout holds only PIDs; the verbose table goes to stderr.
    return Sample{run.wall_s, run.cpu_s, leading_pids(run.out)};
}

}  // namespace

std::vector<Tool> make_tools(const Population& population, const ToolPaths& paths) {
    std::vector<Tool> tools;
    const Population* pop = &population;

    tools.push_back({"sweep", "gpukill `sweep_device_holders()`", "in-process call",
                     ToolKind::in_process, [pop] { return sweep_in_process(*pop); }});
    tools.push_back({"floor_in_process", "floor: readdir + readlinkat walk", "in-process call",
                     ToolKind::in_process, [pop] { return floor_in_process(*pop); }});

    // No NVIDIA driver is needed: without libnvidia-ml.so.1, NVML reports "not loaded" and
    // list still sweeps the device files. The variable is unset, not pointed elsewhere,
    // because a named library that fails to load is an error.
    const std::vector<std::string> list_argv = {paths.gpukill, "list", "--json"};
    const auto list_env = environment_with(
        {"GPUKILL_DEVFS=" + population.devfs(), "GPUKILL_STATE_DIR=" + population.root() + "/state",
         "GPUKILL_CONFIG_DIR=" + population.root() + "/config"},
        {"GPUKILL_NVML_LIBRARY", "GPUKILL_PROCFS", "GPUKILL_SYSFS"});
    tools.push_back({"gpukill_list", "`gpukill list --json`",
                     "GPUKILL_DEVFS=" + population.devfs() + " " + join(list_argv),
                     ToolKind::subprocess, [=] { return gpukill_list(list_argv, list_env); }});

    const auto env = environment_with({}, {});
    const std::vector<std::string> floor_argv = {paths.floor, population.devfs() + "/"};
    tools.push_back({"floor", "floor: `gpukill_proc_fd_floor`", join(floor_argv),
                     ToolKind::subprocess, [=] { return floor_subprocess(floor_argv, env); }});

    std::vector<std::string> fuser_argv = {paths.fuser, "-v"};
    fuser_argv.insert(fuser_argv.end(), population.device_files().begin(),
                      population.device_files().end());
    tools.push_back(
        {"fuser",
         "`fuser -v` on the " + std::to_string(population.device_files().size()) + " device files",
         join(fuser_argv), ToolKind::subprocess, [=] { return fuser(fuser_argv, env); }});
    return tools;
}

}  // namespace gpukill::bench

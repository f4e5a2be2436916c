// gpusim observe --root DIR [--gpu N]... [--name NAME] [--background]
//
// A real process that holds the simulated GPUs the way a monitoring client does: the
// control node and the GPU nodes, as NVML opens them (nvidia-persistenced, nv-hostengine,
// dcgm-exporter, the device plugin, nvidia-smi), and nothing else: no /dev/nvidia-uvm, no
// allocation, so the driver never lists it (docs/SIMULATOR.md, "Observers").

#include <fcntl.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "cli/commands.hpp"
#include "cli/process_name.hpp"
#include "cli/ready_channel.hpp"
#include "cli/stop_signals.hpp"
#include "state/files.hpp"
#include "state/proc_identity.hpp"
#include "state/root.hpp"

namespace gpusim {

namespace {

// The nodes an NVML client holds: nvidiactl first, then each GPU's, read-write as NVML
// opens them. Not mapped: a monitor maps no GPU memory.
Result<std::vector<std::filesystem::path>> open_monitoring_nodes(
    const Root& root, const SimConfig& config, const std::vector<unsigned>& gpus) {
    std::set<unsigned> chosen(gpus.begin(), gpus.end());
    for (unsigned gpu : chosen) {
        if (gpu >= config.gpus.size()) {
            return fail(kExitDevice, "no GPU " + std::to_string(gpu) + " (this host has " +
                                         std::to_string(config.gpus.size()) + ")");
        }
    }
    std::vector<std::filesystem::path> nodes{root.control_node()};
    for (unsigned gpu = 0; gpu < config.gpus.size(); ++gpu) {
        if (chosen.empty() || chosen.contains(gpu)) {
            nodes.push_back(root.device_node(config.gpus[gpu].minor));
        }
    }
    for (const auto& node : nodes) {
        auto fd = open_file(node, O_RDWR);
        if (!fd) return std::unexpected(fd.error());
        fd->release();  // held for life
    }
    return nodes;
}

}  // namespace

int cmd_observe(const ObserveOptions& options, char** argv) {
    if (options.name && options.name->empty()) {
        return report(Error{kExitUsage, "--name must not be empty"});
    }
    if (options.name) {
        if (auto named = take_name(*options.name, argv); !named) return report(named.error());
    }
    ReadyChannel channel = ReadyChannel::foreground();
    if (options.background) {
        bool is_child = false;
        const int code = detach_workload(&channel, &is_child);
        if (!is_child || code != kExitOk) return code;
    }
    StopSignals signals;
    const Root root = root_at(options.root);
    auto config = load_config(root);
    if (!config) return channel.error(config.error());
    auto nodes = open_monitoring_nodes(root, *config, options.gpus);
    if (!nodes) return channel.error(nodes.error());
    auto stat = read_proc_stat(static_cast<int>(::getpid()));
    if (!stat) return channel.error(Error{kExitFailure, "cannot read this process's start time"});

    signals.install(/*ignore_term=*/false);
    nlohmann::json line{{"pid", ::getpid()},
                        {"start_time_ticks", stat->start_time_ticks},
                        {"device_files", nlohmann::json::array()}};
    for (const auto& node : *nodes) line["device_files"].push_back(node.string());
    channel.ready(line.dump());
    signals.wait_for_stop(/*reap=*/true);
    return kExitOk;
}

}  // namespace gpusim

// gpusim invoked as `nvidia-smi` (DIR/bin/nvidia-smi, a symlink `gpusim init` makes): the GPU
// reset path of NVIDIA's tool over the simulated host, `nvidia-smi -r [-i ID[,ID...]]`, with
// the real tool's checks, messages and documented return codes (docs/SIMULATOR.md, "The
// nvidia-smi reset path"). It never touches hardware: a reset clears the GPU's records.

#include <unistd.h>

#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.hpp"
#include "cli/device_clients.hpp"
#include "cli/ledger.hpp"
#include "state/pci.hpp"
#include "state/root.hpp"
#include "state/usage.hpp"

namespace gpusim {

namespace {

namespace fs = std::filesystem;

// nvidia-smi(1), RETURN VALUE.
constexpr int kSmiOk = 0;
constexpr int kSmiInvalidArgument = 2;
constexpr int kSmiNotSupported = 3;
constexpr int kSmiNoPermission = 4;
constexpr int kSmiNotFound = 6;
constexpr int kSmiDriverNotLoaded = 9;
constexpr int kSmiGpuLost = 15;
constexpr int kSmiOther = 255;

constexpr unsigned kFirstArchitectureResetAlone = 7;  // NVML_DEVICE_ARCH_AMPERE

struct SmiArguments {
    bool reset = false;
    bool help = false;
    std::optional<std::string> ids;  // -i / --id, as given
};

// -r/--gpu-reset, -i ID/-iID/--id=ID/--id ID, -h/--help; anything else is not implemented.
std::optional<SmiArguments> parse_arguments(int argc, char** argv) {
    SmiArguments parsed;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "-r" || arg == "--gpu-reset") {
            parsed.reset = true;
        } else if (arg == "-h" || arg == "--help") {
            parsed.help = true;
        } else if (arg == "-i" || arg == "--id") {
            if (i + 1 >= argc) return std::nullopt;
            parsed.ids = argv[++i];
        } else if (arg.starts_with("--id=")) {
            parsed.ids = std::string(arg.substr(5));
        } else if (arg.starts_with("-i") && arg.size() > 2) {
            parsed.ids = std::string(arg.substr(2));
        } else {
            return std::nullopt;
        }
    }
    return parsed;
}

// GPUSIM_ROOT, as the simulated NVML finds its host; else the root this link lives in
// (DIR/bin/nvidia-smi).
std::optional<Root> find_host(const char* argv0) {
    if (const char* env = std::getenv("GPUSIM_ROOT"); env != nullptr && *env != '\0') {
        const Root root = root_at(env);
        if (is_initialised(root)) return root;
    }
    const std::string_view invoked = argv0 != nullptr ? argv0 : "";
    if (invoked.find('/') == std::string_view::npos) return std::nullopt;
    std::error_code error;
    const fs::path link = fs::absolute(fs::path(invoked), error);
    if (error) return std::nullopt;
    const Root root = root_at(link.parent_path().parent_path());
    if (is_initialised(root)) return root;
    return std::nullopt;
}

// Each comma-separated entry is an index, a PCI bus id or a UUID, as nvidia-smi -i takes.
std::optional<std::vector<unsigned>> resolve_ids(const SimConfig& config,
                                                 const std::optional<std::string>& ids) {
    std::vector<unsigned> gpus;
    if (!ids) {
        for (unsigned i = 0; i < config.gpus.size(); ++i) gpus.push_back(i);
        return gpus;
    }
    std::string_view rest = *ids;
    while (true) {
        const std::size_t comma = rest.find(',');
        const std::string_view id = rest.substr(0, comma);
        std::optional<unsigned> found;
        const auto address = parse_pci_address(id);
        for (unsigned i = 0; i < config.gpus.size(); ++i) {
            const GpuSpec& gpu = config.gpus[i];
            if (id == std::to_string(i) || id == gpu.uuid ||
                (address && format_bus_id(*address) == gpu.pci_bus_id)) {
                found = i;
            }
        }
        if (!found) return std::nullopt;
        if (std::find(gpus.begin(), gpus.end(), *found) == gpus.end()) gpus.push_back(*found);
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
    }
    std::sort(gpus.begin(), gpus.end());
    return gpus;
}

bool resets_with_nvlink_peers(const GpuSpec& gpu) {
    return gpu.architecture.ok() && gpu.architecture.value < kFirstArchitectureResetAlone &&
           gpu.nvlink_remote_bus_ids && !gpu.nvlink_remote_bus_ids->empty();
}

// GPUs that must be reset in the same command as `targets` but are not among them: on
// pre-Ampere parts every GPU reachable over NVLink, directly or through a shared NVSwitch.
std::vector<unsigned> missing_nvlink_peers(const SimConfig& config,
                                           const std::vector<unsigned>& targets) {
    std::map<std::string, std::set<unsigned>> attached;  // remote bus id -> GPUs linked to it
    for (unsigned i = 0; i < config.gpus.size(); ++i) {
        const GpuSpec& gpu = config.gpus[i];
        if (!resets_with_nvlink_peers(gpu)) continue;
        attached[gpu.pci_bus_id].insert(i);
        for (const std::string& remote : *gpu.nvlink_remote_bus_ids) attached[remote].insert(i);
    }
    std::set<unsigned> reached(targets.begin(), targets.end());
    std::vector<unsigned> frontier(targets.begin(), targets.end());
    while (!frontier.empty()) {
        const unsigned gpu = frontier.back();
        frontier.pop_back();
        const GpuSpec& spec = config.gpus[gpu];
        if (!resets_with_nvlink_peers(spec)) continue;
        std::vector<std::string> ends = *spec.nvlink_remote_bus_ids;
        ends.push_back(spec.pci_bus_id);
        for (const std::string& end : ends) {
            for (unsigned peer : attached[end]) {
                if (reached.insert(peer).second) frontier.push_back(peer);
            }
        }
    }
    std::vector<unsigned> missing;
    for (unsigned gpu : reached) {
        if (std::find(targets.begin(), targets.end(), gpu) == targets.end()) {
            missing.push_back(gpu);
        }
    }
    return missing;
}

int could_not_reset(const std::vector<std::pair<std::string, std::string>>& failures, int code,
                    std::string_view epilogue = {}) {
    fmt::print("The following GPUs could not be reset:\n");
    for (const auto& [bus_id, why] : failures) fmt::print("  GPU {}: {}\n", bus_id, why);
    if (!epilogue.empty()) fmt::print("\n{}\n", epilogue);
    std::fflush(stdout);
    return code;
}

std::string_view failure_text(Failure failure) {
    switch (failure) {
        case Failure::not_supported:
            return "Not Supported";
        case Failure::no_permission:
            return "Insufficient Permissions";
        default:
            return "Unknown Error";
    }
}

int failure_exit(Failure failure) {
    return failure == Failure::not_supported   ? kSmiNotSupported
           : failure == Failure::no_permission ? kSmiNoPermission
                                               : kSmiOther;
}

int reset(const Root& root, const SimConfig& config, const std::vector<unsigned>& targets) {
    if (::geteuid() != 0) {
        std::vector<std::pair<std::string, std::string>> denied;
        for (unsigned gpu : targets) {
            denied.emplace_back(config.gpus[gpu].pci_bus_id, "Insufficient Permissions");
        }
        return could_not_reset(denied, kSmiNoPermission);
    }
    for (unsigned gpu : targets) {
        if (config.gpus[gpu].lost) {
            fmt::print(
                "Unable to reset GPU {}: GPU is lost. Reboot the system to recover this "
                "GPU\n",
                config.gpus[gpu].pci_bus_id);
            std::fflush(stdout);
            return kSmiGpuLost;
        }
    }
    for (unsigned gpu : targets) {
        const GpuSpec& spec = config.gpus[gpu];
        if (spec.reset_failure != Failure::none) {
            return could_not_reset(
                {{spec.pci_bus_id, std::string(failure_text(spec.reset_failure))}},
                failure_exit(spec.reset_failure));
        }
    }
    if (const auto missing = missing_nvlink_peers(config, targets); !missing.empty()) {
        fmt::print(
            "The following GPUs are connected by NVLink to the GPUs being reset and must "
            "be reset in the same command (add them with -i, or omit -i):\n");
        for (unsigned gpu : missing) fmt::print("  GPU {}\n", config.gpus[gpu].pci_bus_id);
        std::fflush(stdout);
        return kSmiOther;
    }
    std::vector<std::pair<std::string, std::string>> busy;
    for (unsigned gpu : targets) {
        auto usage = survey_gpu(root, gpu);
        if (!usage)
            return could_not_reset({{config.gpus[gpu].pci_bus_id, "Unknown Error"}}, kSmiOther);
        const bool allocations_held =
            std::any_of(usage->allocations.begin(), usage->allocations.end(),
                        [](const AllocationState& a) { return a.held; });
        if (allocations_held || !device_clients(root.device_node(config.gpus[gpu].minor)).empty()) {
            busy.emplace_back(config.gpus[gpu].pci_bus_id, "In use by another client");
        }
    }
    if (!busy.empty()) {
        return could_not_reset(
            busy, kSmiOther,
            fmt::format("{} device{} currently being used by one or more other processes (e.g., "
                        "CUDA application, graphics application such as an X server, or a "
                        "monitoring application such as another instance of nvidia-smi). Please "
                        "first kill all processes using this device and all compute applications "
                        "running in the system.",
                        busy.size(), busy.size() == 1 ? " is" : "s are"));
    }
    for (unsigned gpu : targets) {
        // Checks the holders again under the state lock: a workload starting meanwhile wins.
        if (auto outcome = reset_gpu(root, config, gpu, false); !outcome) {
            const bool in_use = outcome.error().exit_code == kExitDevice;
            return could_not_reset({{config.gpus[gpu].pci_bus_id,
                                     in_use ? "In use by another client" : "Unknown Error"}},
                                   kSmiOther);
        }
        fmt::print("GPU {} was successfully reset.\n", config.gpus[gpu].pci_bus_id);
    }
    std::fflush(stdout);
    return kSmiOk;
}

}  // namespace

int run_nvidia_smi(int argc, char** argv) {
    const auto arguments = parse_arguments(argc, argv);
    if (!arguments || (!arguments->reset && !arguments->help)) {
        fmt::print(
            "Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.\n"
            "(gpusim's nvidia-smi implements only -r/--gpu-reset [-i ID[,ID...]].)\n");
        return kSmiInvalidArgument;
    }
    if (arguments->help) {
        fmt::print(
            "nvidia-smi (gpusim): -r, --gpu-reset  reset GPUs; -i, --id=ID  target GPUs "
            "by index, PCI bus id or UUID (comma-separated)\n");
        return kSmiOk;
    }
    const auto root = find_host(argc > 0 ? argv[0] : nullptr);
    if (!root) {
        fmt::print(
            "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
            "Make sure that the latest NVIDIA driver is installed and running.\n");
        return kSmiDriverNotLoaded;
    }
    auto config = load_config(*root);
    if (!config) {
        fmt::print(
            "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
            "Make sure that the latest NVIDIA driver is installed and running.\n");
        return kSmiDriverNotLoaded;
    }
    const auto targets = resolve_ids(*config, arguments->ids);
    if (!targets || targets->empty()) {
        fmt::print("No devices were found\n");
        return kSmiNotFound;
    }
    return reset(*root, *config, *targets);
}

}  // namespace gpusim

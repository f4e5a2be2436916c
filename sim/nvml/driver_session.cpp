#include "nvml/driver_session.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cstdlib>

namespace gpusim::nvml {

namespace {

std::array<nvmlDevice_st, kMaxGpus>& handles() {
    static std::array<nvmlDevice_st, kMaxGpus> table = [] {
        std::array<nvmlDevice_st, kMaxGpus> made{};
        for (unsigned i = 0; i < made.size(); ++i) made[i].index = i;
        return made;
    }();
    return table;
}

}  // namespace

// The control node and every GPU node, and nothing else: NVML does not open
// /dev/nvidia-uvm, which only the CUDA driver needs (docs/SIMULATOR.md, "Observers").
OpenDevices::OpenDevices(const Root& root, const std::vector<GpuSpec>& gpus) {
    std::vector<std::filesystem::path> nodes{root.control_node()};
    for (const GpuSpec& gpu : gpus) nodes.push_back(root.device_node(gpu.minor));
    for (const std::filesystem::path& node : nodes) {
        const int fd = ::open(node.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd >= 0) fds_.push_back(fd);  // a missing node (a lost GPU) is not held
    }
}

OpenDevices::~OpenDevices() {
    for (int fd : fds_) ::close(fd);
}

DriverSession& DriverSession::instance() {
    static DriverSession session;
    return session;
}

nvmlDevice_t DriverSession::handle(unsigned index) {
    return index < kMaxGpus ? &handles()[index] : nullptr;
}

nvmlReturn_t DriverSession::init() {
    try {
        const std::lock_guard lock(mutex_);
        if (references_ > 0) {
            ++references_;
            return NVML_SUCCESS;
        }
        const char* root_dir = std::getenv("GPUSIM_ROOT");
        if (root_dir == nullptr || *root_dir == '\0') return NVML_ERROR_DRIVER_NOT_LOADED;
        Root root = root_at(root_dir);
        auto config = load_config(root);
        if (!config) return NVML_ERROR_DRIVER_NOT_LOADED;
        open_devices_.emplace(root, config->gpus);
        driver_ = LoadedDriver{std::move(root), std::move(*config)};
        references_ = 1;
        return NVML_SUCCESS;
    } catch (...) {
        return NVML_ERROR_UNKNOWN;
    }
}

nvmlReturn_t DriverSession::shutdown() {
    const std::lock_guard lock(mutex_);
    if (references_ == 0) return NVML_ERROR_UNINITIALIZED;
    if (--references_ == 0) {
        driver_.reset();
        open_devices_.reset();
    }
    return NVML_SUCCESS;
}

nvmlReturn_t failure_code(Failure failure) {
    switch (failure) {
        case Failure::none:
            return NVML_SUCCESS;
        case Failure::not_supported:
            return NVML_ERROR_NOT_SUPPORTED;
        case Failure::no_permission:
            return NVML_ERROR_NO_PERMISSION;
        case Failure::unknown:
            return NVML_ERROR_UNKNOWN;
    }
    return NVML_ERROR_UNKNOWN;
}

}  // namespace gpusim::nvml

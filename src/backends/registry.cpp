#include "backends/registry.hpp"

#include "backends/nvml/nvml_backend.hpp"

namespace gpukill {

std::vector<std::unique_ptr<Backend>> open_backends(const BackendConfig& config,
                                                    std::optional<Vendor> only_vendor) {
    std::vector<std::unique_ptr<Backend>> backends;
    auto wanted = [&](Vendor vendor) { return !only_vendor || *only_vendor == vendor; };
    if (wanted(Vendor::nvidia)) {
        backends.push_back(std::make_unique<nvml::NvmlBackend>(config.nvml_library));
    }
    return backends;
}

std::optional<std::string> requested_backend_failure(
    const std::vector<std::unique_ptr<Backend>>& backends) {
    for (const auto& backend : backends) {
        const BackendStatus& status = backend->status();
        if (status.explicitly_requested && !status.loaded) return status.detail;
    }
    return std::nullopt;
}

}  // namespace gpukill

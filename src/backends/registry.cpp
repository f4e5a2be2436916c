#include "backends/registry.hpp"

#include "backends/drm/drm_backend.hpp"
#include "backends/nvml/nvml_backend.hpp"

namespace gpukill {

std::vector<std::unique_ptr<Backend>> open_backends(const BackendConfig& config,
                                                    std::optional<Vendor> only_vendor) {
    std::vector<std::unique_ptr<Backend>> backends;
    auto wanted = [&](Vendor vendor) { return !only_vendor || *only_vendor == vendor; };
    if (wanted(Vendor::nvidia)) {
        backends.push_back(std::make_unique<nvml::NvmlBackend>(config.nvml_library));
    }
    // DRM spans vendors (AMD, Intel, an NVIDIA GPU on nouveau, any other driver), so it is
    // opened for every filter; restrict_to_vendor keeps the GPUs of the vendor asked for.
    backends.push_back(std::make_unique<drm::DrmBackend>(config.roots));
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

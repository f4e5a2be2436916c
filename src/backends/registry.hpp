// The explicit list of backends. New vendors are added here, in one place;
// nothing registers itself through static constructors.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "model/host_roots.hpp"

namespace gpukill {

struct BackendConfig {
    HostRoots roots;
    std::optional<std::string> nvml_library;  // --nvml-library / GPUKILL_NVML_LIBRARY
};

// Opens the backends for the given vendors (empty optional: all). A backend that
// cannot load is still returned, with status().loaded false and the reason.
std::vector<std::unique_ptr<Backend>> open_backends(const BackendConfig& config,
                                                    std::optional<Vendor> only_vendor);

// The reason an explicitly named backend (e.g. --nvml-library) failed to load, if one
// did: commands treat that as an error, not as a host without that vendor.
std::optional<std::string> requested_backend_failure(
    const std::vector<std::unique_ptr<Backend>>& backends);

}  // namespace gpukill

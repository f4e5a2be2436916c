#include "state/root.hpp"

#include <nlohmann/json.hpp>

#include "state/files.hpp"

namespace gpusim {

std::filesystem::path Root::device_node(unsigned minor) const {
    return dev_dir() / ("nvidia" + std::to_string(minor));
}

std::filesystem::path Root::allocations_dir(unsigned gpu) const {
    return state_dir() / "allocations" / std::to_string(gpu);
}

std::filesystem::path Root::leaks_dir(unsigned gpu) const {
    return state_dir() / "leaks" / std::to_string(gpu);
}

Root root_at(const std::filesystem::path& dir) {
    std::error_code ignored;
    std::filesystem::path absolute = std::filesystem::absolute(dir, ignored);
    if (absolute.empty()) absolute = dir;
    absolute = absolute.lexically_normal();
    // "DIR/" normalises to "DIR/" (empty filename); drop it so paths print cleanly.
    if (!absolute.has_filename() && absolute.has_parent_path() &&
        absolute != absolute.root_path()) {
        absolute = absolute.parent_path();
    }
    return Root{absolute};
}

bool is_initialised(const Root& root) {
    std::error_code ignored;
    return std::filesystem::is_regular_file(root.config_file(), ignored);
}

Result<SimConfig> load_config(const Root& root) {
    if (!is_initialised(root)) {
        return fail(kExitFailure,
                    root.dir.string() + " is not a gpusim root (run gpusim init --root DIR first)");
    }
    auto text = read_file(root.config_file());
    if (!text) return std::unexpected(text.error());
    const nlohmann::json json = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) {
        return fail(kExitFailure, "corrupt gpusim state: " + root.config_file().string());
    }
    return config_from_json(json);
}

}  // namespace gpusim

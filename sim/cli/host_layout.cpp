#include "cli/host_layout.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <nlohmann/json.hpp>

#include "cli/drm_layout.hpp"
#include "state/files.hpp"

namespace gpusim {

namespace {

namespace fs = std::filesystem;

// Creates an empty file with exactly `mode` (the umask would narrow it): device nodes are
// crw-rw-rw- on a real host, and any user's workload must be able to lock holders.lock.
Result<void> create_file(const fs::path& path, unsigned mode, std::string_view content = {}) {
    auto fd = open_file(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (!fd) return std::unexpected(fd.error());
    if (::fchmod(fd->get(), static_cast<mode_t>(mode)) != 0 || !write_all(fd->get(), content)) {
        return fail(kExitFailure, "cannot write " + path.string() + ": " + errno_text(errno));
    }
    return {};
}

Result<void> create_dirs(const fs::path& dir) {
    std::error_code error;
    fs::create_directories(dir, error);
    if (error) return fail(kExitFailure, "cannot create " + dir.string() + ": " + error.message());
    return {};
}

bool is_device_node_name(const std::string& name) {
    if (name == "nvidiactl" || name == "nvidia-uvm") return true;
    if (!name.starts_with("nvidia") || name.size() == 6) return false;
    for (std::size_t i = 6; i < name.size(); ++i) {
        if (name[i] < '0' || name[i] > '9') return false;
    }
    return true;
}

// DIR/bin/nvidia-smi -> this gpusim: invoked by that name it is the reset path of
// nvidia-smi (cli/nvidia_smi.cpp).
Result<void> link_nvidia_smi(const Root& root) {
    std::error_code error;
    const fs::path self = fs::read_symlink("/proc/self/exe", error);
    if (error) return fail(kExitFailure, "cannot resolve /proc/self/exe: " + error.message());
    if (auto made = create_dirs(root.nvidia_smi_link().parent_path()); !made) return made;
    fs::remove(root.nvidia_smi_link(), error);
    fs::create_symlink(self, root.nvidia_smi_link(), error);
    if (error) {
        return fail(kExitFailure,
                    "cannot create " + root.nvidia_smi_link().string() + ": " + error.message());
    }
    return {};
}

}  // namespace

Result<void> create_host(const Root& root, const SimConfig& config) {
    if (auto made = create_dirs(root.dev_dir()); !made) return made;
    for (const GpuSpec& gpu : config.gpus) {
        if (auto made = create_file(root.device_node(gpu.minor), 0666); !made) return made;
    }
    if (auto made = create_file(root.control_node(), 0666); !made) return made;
    if (auto made = create_file(root.uvm_node(), 0666); !made) return made;

    if (auto made = create_dirs(root.state_dir()); !made) return made;
    for (unsigned gpu = 0; gpu < config.gpus.size(); ++gpu) {
        if (auto made = create_dirs(root.allocations_dir(gpu)); !made) return made;
        if (auto made = create_dirs(root.leaks_dir(gpu)); !made) return made;
    }
    if (auto made = create_file(root.state_lock(), 0666); !made) return made;
    if (auto made = create_file(root.holders_lock(), 0666); !made) return made;
    if (auto made = create_file(root.id_counter(), 0666, "1\n"); !made) return made;
    if (auto made = link_nvidia_smi(root); !made) return made;
    if (auto made = create_drm_host(root, config); !made) return made;
    return write_file_atomic(root.config_file(), config_to_json(config).dump(2) + "\n");
}

Result<void> remove_host(const Root& root) {
    std::error_code error;
    // The configuration goes first: from then on the root no longer counts as initialised.
    fs::remove(root.config_file(), error);
    fs::remove_all(root.state_dir(), error);
    std::error_code link_error;  // the link may never have been made: not an error
    fs::remove(root.nvidia_smi_link(), link_error);
    fs::remove(root.nvidia_smi_link().parent_path(), link_error);  // only when empty
    if (error) {
        return fail(kExitFailure,
                    "cannot remove " + root.state_dir().string() + ": " + error.message());
    }
    if (auto removed = remove_drm_host(root); !removed) return removed;
    fs::directory_iterator it(root.dev_dir(), error);
    for (; !error && it != fs::directory_iterator(); it.increment(error)) {
        if (!is_device_node_name(it->path().filename().string())) continue;
        std::error_code ignored;
        fs::remove(it->path(), ignored);
    }
    return {};
}

}  // namespace gpusim

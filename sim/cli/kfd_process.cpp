#include "cli/kfd_process.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>

#include "cli/drm_layout.hpp"
#include "state/files.hpp"

namespace gpusim {

Result<void> publish_kfd_process(const Root& root, const SimConfig& config, unsigned drm_gpu,
                                 std::uint64_t bytes) {
    namespace fs = std::filesystem;
    const std::string pid = std::to_string(::getpid());
    const fs::path files = root.state_dir() / "kfd" / pid;
    const fs::path entry = kfd_proc_dir(root) / pid;
    std::error_code error;
    // Left by an earlier process with this PID: its link dangles, its files are stale.
    fs::remove_all(files, error);
    fs::remove(entry, error);
    fs::create_directories(files, error);
    if (error)
        return fail(kExitFailure, "cannot create " + files.string() + ": " + error.message());
    for (const auto& [index, gpu_id] : kfd_gpu_ids(config)) {
        const fs::path path = files / ("vram_" + std::to_string(gpu_id));
        auto fd = open_file(path, O_WRONLY | O_CREAT | O_TRUNC);
        // kfd's attribute: "%llu\n".
        const std::string text = std::to_string(index == drm_gpu ? bytes : 0) + "\n";
        if (!fd || !write_all(fd->get(), text)) {
            return fail(kExitFailure, "cannot write " + path.string());
        }
    }
    if (::chdir(files.c_str()) != 0) {
        return fail(kExitFailure, "cannot enter " + files.string() + ": " + errno_text(errno));
    }
    fs::create_symlink("/proc/" + pid + "/cwd", entry, error);
    if (error) return fail(kExitFailure, "cannot link " + entry.string() + ": " + error.message());
    return {};
}

}  // namespace gpusim

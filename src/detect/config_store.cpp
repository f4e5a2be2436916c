// load_rogue_config and install_rogue_config (config_file.hpp): the file system side.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "detect/config_file.hpp"
#include "host/proc_reader.hpp"
#include "sys/fd_io.hpp"

namespace gpukill::detect {
namespace {

constexpr mode_t kConfigDirMode = 0755;
constexpr mode_t kConfigFileMode = 0644;  // configuration, not a secret: readable like /etc

// mkdir -p: each missing component with kConfigDirMode.
Result<void> make_directories(const std::string& dir) {
    for (std::size_t slash = dir.find('/', 1);; slash = dir.find('/', slash + 1)) {
        const std::string prefix = dir.substr(0, slash);
        if (!prefix.empty() && ::mkdir(prefix.c_str(), kConfigDirMode) != 0 && errno != EEXIST) {
            return std::unexpected(
                os_error("cannot create configuration directory " + prefix, errno));
        }
        if (slash == std::string::npos) break;
    }
    struct stat info {};
    if (::stat(dir.c_str(), &info) != 0) {
        return std::unexpected(os_error("cannot use configuration directory " + dir, errno));
    }
    if (!S_ISDIR(info.st_mode)) {
        return std::unexpected(os_error("cannot use configuration directory " + dir, ENOTDIR));
    }
    return {};
}

Result<void> write_all(int fd, std::string_view text, const std::string& path) {
    while (!text.empty()) {
        const ssize_t written = ::write(fd, text.data(), text.size());
        if (written < 0) {
            if (errno == EINTR) continue;
            return std::unexpected(os_error("cannot write " + path, errno));
        }
        text.remove_prefix(static_cast<std::size_t>(written));
    }
    return {};
}

}  // namespace

Result<LoadedRogueConfig> load_rogue_config(const std::string& config_dir,
                                            const std::optional<std::string>& file) {
    std::string path;
    if (file) {
        path = *file;
    } else if (!config_dir.empty()) {
        path = config_dir + "/" + kRogueConfigFileName;
    }
    if (path.empty()) return LoadedRogueConfig{default_rogue_config(), "built-in defaults"};
    auto text = read_text_file(path);
    if (!text) {
        if (!file && text.error().errno_value == ENOENT) {
            return LoadedRogueConfig{default_rogue_config(), "built-in defaults"};
        }
        return std::unexpected(text.error());
    }
    auto config = parse_rogue_config(*text, path);
    if (!config) return std::unexpected(config.error());
    return LoadedRogueConfig{std::move(*config), path};
}

Result<std::string> install_rogue_config(const std::string& config_dir, std::string_view text) {
    if (config_dir.empty()) {
        return fail("the configuration directory is empty: set --config-dir or GPUKILL_CONFIG_DIR");
    }
    if (auto made = make_directories(config_dir); !made) return std::unexpected(made.error());
    const std::string path = config_dir + "/" + kRogueConfigFileName;
    std::string temporary = config_dir + "/." + kRogueConfigFileName + ".XXXXXX";
    UniqueFd fd(::mkostemp(temporary.data(), O_CLOEXEC));
    if (!fd) return std::unexpected(os_error("cannot create a file in " + config_dir, errno));
    auto give_up = [&](Error error) -> Result<std::string> {
        ::unlink(temporary.c_str());
        return std::unexpected(std::move(error));
    };
    if (auto written = write_all(fd.get(), text, temporary); !written)
        return give_up(written.error());
    if (::fchmod(fd.get(), kConfigFileMode) != 0) {
        return give_up(os_error("cannot set the mode of " + temporary, errno));
    }
    if (::fsync(fd.get()) != 0) return give_up(os_error("cannot sync " + temporary, errno));
    if (::close(fd.release()) != 0) return give_up(os_error("cannot close " + temporary, errno));
    if (::rename(temporary.c_str(), path.c_str()) != 0) {
        return give_up(os_error("cannot install " + path, errno));
    }
    // The rename is durable only once the directory entry is on disk.
    auto dir = open_dir_at(AT_FDCWD, config_dir.c_str());
    if (!dir) return std::unexpected(dir.error());
    if (::fsync(dir->get()) != 0) {
        return std::unexpected(
            os_error("cannot sync configuration directory " + config_dir, errno));
    }
    return path;
}

}  // namespace gpukill::detect

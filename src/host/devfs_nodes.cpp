#include "host/devfs_nodes.hpp"

#include <filesystem>
#include <system_error>

#include "host/proc_parse.hpp"

namespace gpukill {

FileIdentity identity_of(const struct stat& info) {
    if (S_ISCHR(info.st_mode) || S_ISBLK(info.st_mode)) return {info.st_rdev, 0};
    return {info.st_dev, info.st_ino};
}

std::vector<DevfsNode> list_gpu_device_nodes(const std::string& devfs) {
    std::vector<DevfsNode> nodes;
    std::error_code failed;
    const std::string root = std::filesystem::weakly_canonical(devfs, failed).string();
    for (const char* folder : kGpuNodeDirectories) {
        for (const auto& entry : std::filesystem::directory_iterator(root + folder, failed)) {
            std::string path = entry.path().string();
            auto node = classify_device_path(path, root);
            if (!node) continue;
            std::optional<FileIdentity> identity;
            std::optional<FileIdentity> file;
            struct stat info {};
            if (::stat(path.c_str(), &info) == 0) {
                identity = identity_of(info);
                file = FileIdentity{info.st_dev, info.st_ino};
            }
            nodes.push_back(DevfsNode{std::move(path), std::move(*node), identity, file});
        }
    }
    return nodes;
}

}  // namespace gpukill

// A Secret volume laid out as the kubelet lays it (its atomic writer,
// kubernetes pkg/volume/util/atomic_writer.go): the files live in a hidden timestamped
// directory, `..data` is a relative link to that directory, and every visible name is a
// relative link `NAME -> ..data/NAME`. An update writes a new timestamped directory,
// points a new link `..data_tmp` at it, renames that over `..data` (atomic) and removes
// the old directory. Used by the unit tests of the private-file reader and by the
// agent's Kubernetes test, so both meet the layout the agent meets in a pod.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>

namespace gpukill::testing {

class KubeletSecretVolume {
  public:
    // `files`: name -> content, each written with `mode` (the volume's defaultMode).
    KubeletSecretVolume(std::filesystem::path dir, const std::map<std::string, std::string>& files,
                        mode_t mode)
        : dir_(std::move(dir)) {
        std::filesystem::create_directories(dir_);
        write(files, mode);
    }

    const std::filesystem::path& dir() const { return dir_; }
    std::string path(const std::string& name) const { return (dir_ / name).string(); }

    // The kubelet's update: a new timestamped directory swapped in by renaming `..data`.
    void write(const std::map<std::string, std::string>& files, mode_t mode) {
        const std::string stamped =
            "..2026_05_01_10_20_30." + std::to_string(++generation_) + std::to_string(::getpid());
        const std::filesystem::path data_dir = dir_ / stamped;
        std::filesystem::create_directory(data_dir);
        ::chmod(data_dir.c_str(), 0755);  // the writer's mode, whatever the umask
        for (const auto& [name, content] : files) {
            const std::filesystem::path file = data_dir / name;
            std::ofstream(file, std::ios::binary) << content;
            if (::chmod(file.c_str(), mode) != 0) throw std::runtime_error("chmod " + name);
            const std::filesystem::path visible = dir_ / name;
            if (!std::filesystem::is_symlink(visible)) {
                std::filesystem::create_symlink(std::filesystem::path("..data") / name, visible);
            }
        }
        const std::filesystem::path next = dir_ / "..data_tmp";
        std::filesystem::create_symlink(stamped, next);
        if (std::rename(next.c_str(), (dir_ / "..data").c_str()) != 0) {
            throw std::runtime_error("rename ..data_tmp");
        }
        if (!current_.empty()) std::filesystem::remove_all(dir_ / current_);
        current_ = stamped;
    }

  private:
    std::filesystem::path dir_;
    std::string current_;
    int generation_ = 0;
};

}  // namespace gpukill::testing

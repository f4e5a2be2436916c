// Fixture sysfs trees for the DRM backend tests (tests/fixtures/sys/<host>/, laid out as
// the kernel does, with relative links), and writable copies of them for tests that
// change a value between two reads.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

#include "model/host_roots.hpp"

namespace gpukill::drm::testing {

inline std::string fixture_sysfs(std::string_view host) {
    return std::string(GPUKILL_FIXTURES_DIR) + "/sys/" + std::string(host);
}

inline HostRoots fixture_roots(std::string_view host) {
    HostRoots roots;
    roots.sysfs = fixture_sysfs(host);
    return roots;
}

// A temporary copy of a fixture tree (links copied as links), removed afterwards.
class SysfsCopy {
  public:
    explicit SysfsCopy(std::string_view host) {
        const char* base = std::getenv("TMPDIR");
        std::string pattern = std::string(base && *base ? base : "/tmp") + "/gpukill-drm-XXXXXX";
        if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
        dir_ = pattern;
        if (!host.empty()) {
            std::filesystem::copy(fixture_sysfs(host), dir_ + "/sys",
                                  std::filesystem::copy_options::recursive |
                                      std::filesystem::copy_options::copy_symlinks);
        } else {
            std::filesystem::create_directories(dir_ + "/sys");
        }
    }
    ~SysfsCopy() {
        std::error_code ignored;
        std::filesystem::remove_all(dir_, ignored);
    }
    SysfsCopy(const SysfsCopy&) = delete;
    SysfsCopy& operator=(const SysfsCopy&) = delete;

    std::string sysfs() const { return dir_ + "/sys"; }
    HostRoots roots() const {
        HostRoots roots;
        roots.sysfs = sysfs();
        return roots;
    }
    void write(std::string_view relative, std::string_view text) const {
        const std::string path = sysfs() + "/" + std::string(relative);
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        if (!out) throw std::runtime_error("cannot write " + path);
    }
    // Replaces a file by a directory: reading it then fails with EISDIR, an error other
    // than "absent" that even root gets (root reads files whatever their mode).
    void make_unreadable(std::string_view relative) const {
        const std::string path = sysfs() + "/" + std::string(relative);
        std::filesystem::remove(path);
        std::filesystem::create_directory(path);
    }
    void remove(std::string_view relative) const {
        std::filesystem::remove_all(sysfs() + "/" + std::string(relative));
    }

  private:
    std::string dir_;
};

}  // namespace gpukill::drm::testing

#include "test_cgroup.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

namespace gpukill::testing {

TestCgroup::TestCgroup(const std::string& relative) {
    for (const char* hierarchy :
         {"/sys/fs/cgroup/pids", "/sys/fs/cgroup/unified", "/sys/fs/cgroup"}) {
        if (!std::filesystem::exists(std::string(hierarchy) + "/cgroup.procs")) continue;
        std::vector<std::string> made;
        std::string dir = hierarchy;
        const std::filesystem::path parts(relative);
        bool ok = true;
        for (auto part = parts.begin(); part != parts.end(); ++part) {
            dir += "/" + part->string();
            if (::mkdir(dir.c_str(), 0755) == 0) {
                made.push_back(dir);
                continue;
            }
            // A parent may be shared; the leaf must be this test's alone, or another
            // test's cleanup would move this one's processes out of it.
            if (errno != EEXIST || std::next(part) == parts.end()) {
                ok = false;
                break;
            }
        }
        if (ok && std::filesystem::exists(dir + "/cgroup.procs")) {
            hierarchy_ = hierarchy;
            created_ = std::move(made);
            return;
        }
        for (auto it = made.rbegin(); it != made.rend(); ++it) ::rmdir(it->c_str());
    }
}

TestCgroup::~TestCgroup() {
    if (created_.empty()) return;
    std::ifstream procs(created_.back() + "/cgroup.procs");
    for (std::string pid; std::getline(procs, pid);) {
        std::ofstream(hierarchy_ + "/cgroup.procs") << pid << "\n";
    }
    for (auto it = created_.rbegin(); it != created_.rend(); ++it) ::rmdir(it->c_str());
}

bool TestCgroup::move(pid_t pid) const {
    if (created_.empty()) return false;
    std::ofstream procs(created_.back() + "/cgroup.procs");
    procs << pid << "\n";
    procs.flush();
    return static_cast<bool>(procs);
}

}  // namespace gpukill::testing

#include "cli/device_clients.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <string>
#include <system_error>

namespace gpusim {

namespace {

namespace fs = std::filesystem;

bool holds(const fs::path& fd_dir, const std::string& target) {
    std::error_code error;
    fs::directory_iterator it(fd_dir, error);
    for (; !error && it != fs::directory_iterator(); it.increment(error)) {
        std::error_code ignored;
        if (fs::read_symlink(it->path(), ignored).string() == target) return true;
    }
    return false;
}

// A mapping of the node, its descriptor closed (gpusim run --mapping-only): the driver's
// file stays referenced, so the client lives on. The path is the last field of the line.
bool maps(const fs::path& maps_file, const std::string& target) {
    std::ifstream in(maps_file);
    for (std::string line; std::getline(in, line);) {
        if (line.size() > target.size() && line.ends_with(target) &&
            line[line.size() - target.size() - 1] == ' ') {
            return true;
        }
    }
    return false;
}

}  // namespace

std::vector<int> device_clients(const fs::path& device_node) {
    const std::string target = device_node.lexically_normal().string();
    std::vector<int> clients;
    std::error_code error;
    fs::directory_iterator it("/proc", error);
    for (; !error && it != fs::directory_iterator(); it.increment(error)) {
        const std::string name = it->path().filename().string();
        int pid = 0;
        const auto [end, parsed] = std::from_chars(name.data(), name.data() + name.size(), pid);
        if (parsed != std::errc{} || end != name.data() + name.size() || pid == ::getpid()) {
            continue;
        }
        if (holds(it->path() / "fd", target) || maps(it->path() / "maps", target)) {
            clients.push_back(pid);
        }
    }
    std::sort(clients.begin(), clients.end());
    return clients;
}

}  // namespace gpusim

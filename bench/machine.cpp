#include "machine.hpp"

#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>

namespace gpukill::bench {

Machine describe_machine() {
    Machine machine;
    machine.date_utc = fmt::format("{:%Y-%m-%d %H:%M:%S} UTC", fmt::gmtime(std::time(nullptr)));
    utsname name{};
    ::uname(&name);
    machine.kernel = name.release;
    machine.cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
    return machine;
}

std::string filesystem_type(const std::string& path) {
    struct statfs info {};
    if (::statfs(path.c_str(), &info) != 0) return "unknown";
    // The common ones, from linux/magic.h.
    switch (static_cast<unsigned long>(info.f_type)) {
        case 0xEF53:
            return "ext4";
        case 0x01021994:
            return "tmpfs";
        case 0x58465342:
            return "xfs";
        case 0x9123683E:
            return "btrfs";
        case 0x794C7630:
            return "overlayfs";
        default:
            return fmt::format("{:#x}", static_cast<unsigned long>(info.f_type));
    }
}

std::size_t count_processes() {
    std::size_t count = 0;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
        const std::string name = entry.path().filename().string();
        if (!name.empty() &&
            std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
            ++count;
        }
    }
    return count;
}

std::string load_average() {
    std::ifstream in("/proc/loadavg");
    std::string one, five, fifteen;
    in >> one >> five >> fifteen;
    return one + " " + five + " " + fifteen;
}

}  // namespace gpukill::bench

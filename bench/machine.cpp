#include "machine.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <ctime>
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

std::string load_average() {
    std::ifstream in("/proc/loadavg");
    std::string one, five, fifteen;
    in >> one >> five >> fifteen;
    return one + " " + five + " " + fifteen;
}

}  // namespace gpukill::bench

#include "cli/process_name.hpp"

#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "state/files.hpp"

namespace gpusim {

namespace {
constexpr std::size_t kCommLength = 15;  // TASK_COMM_LEN - 1
}  // namespace

Result<void> take_name(const std::string& name, char** argv) {
    if (std::strcmp(argv[0], name.c_str()) != 0) {
        std::vector<char*> renamed;
        renamed.push_back(const_cast<char*>(name.c_str()));
        for (char** arg = argv + 1; *arg != nullptr; ++arg) renamed.push_back(*arg);
        renamed.push_back(nullptr);
        ::execv("/proc/self/exe", renamed.data());
        return fail(kExitFailure, "cannot re-execute as " + name + ": " + errno_text(errno));
    }
    const std::string comm = name.substr(0, kCommLength);
    if (::prctl(PR_SET_NAME, comm.c_str(), 0, 0, 0) != 0) {
        return fail(kExitFailure, "cannot set the process name: " + errno_text(errno));
    }
    return {};
}

}  // namespace gpusim

// gpusim run --root DIR --gpu N --mem SIZE [--util PCT] [--workers K] [--ignore-term]
//            [--term-delay SECS] [--name NAME] [--background]

#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "cli/commands.hpp"
#include "cli/workload.hpp"
#include "state/files.hpp"
#include "state/size.hpp"

namespace gpusim {

namespace {

constexpr std::size_t kCommLength = 15;  // TASK_COMM_LEN - 1

// Makes the process show as `name`: argv[0] (cmdline) needs a re-exec of ourselves, comm
// needs PR_SET_NAME. Forked workers inherit both.
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

}  // namespace

int cmd_run(const RunOptions& options, char** argv) {
    auto bytes = parse_size(options.memory);
    if (!bytes) return report(bytes.error());
    if (options.name && options.name->empty()) {
        return report(Error{kExitUsage, "--name must not be empty"});
    }
    if (options.name) {
        if (auto named = take_name(*options.name, argv); !named) return report(named.error());
    }

    ReadyChannel channel = ReadyChannel::foreground();
    if (options.background) {
        bool is_child = false;
        const int code = detach_workload(&channel, &is_child);
        if (!is_child || code != kExitOk) return code;
    }

    const WorkloadSpec spec{root_at(options.root),     options.gpu,     *bytes,
                            options.util_percent,      options.workers, options.ignore_term,
                            options.term_delay_seconds};
    return run_workload(spec, channel);
}

}  // namespace gpusim

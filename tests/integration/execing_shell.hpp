// A shell that runs `prelude` (opening a device node, say), prints "ready", waits on a
// FIFO for its cue, then execs a second shell that prints "execd" and blocks on another
// FIFO that no one writes: two programs, one identity (PID and start time). The FIFOs are
// made under `dir`. The command is killed and reaped by RunningCommand's destructor.
#pragma once

#include <sys/stat.h>

#include <fmt/format.h>

#include <fstream>
#include <string>
#include <vector>

#include "support.hpp"

namespace gpukill::testing {

class ExecingShell {
  public:
    ExecingShell(const std::string& dir, const std::string& prelude)
        : cue_(made_fifo(dir + "/cue")),
          second_program_(fmt::format("echo execd; read y < '{}'", made_fifo(dir + "/never"))),
          command_({"/bin/sh", "-c",
                    fmt::format("{}echo ready; read x < '{}'; exec /bin/sh -c \"{}\"", prelude,
                                cue_, second_program_)}) {}

    // Blocks until the first program is waiting.
    bool wait_ready() { return command_.read_line() == "ready"; }
    // Gives the cue and returns once the second program runs.
    bool exec_now() {
        std::ofstream(cue_) << "go\n";  // the open completes once the shell reads it
        return command_.read_line() == "execd";
    }
    std::vector<std::string> second_cmdline() const { return {"/bin/sh", "-c", second_program_}; }
    RunningCommand& command() { return command_; }

  private:
    static std::string made_fifo(const std::string& path) {
        ::mkfifo(path.c_str(), 0600);
        return path;
    }
    std::string cue_;
    std::string second_program_;
    RunningCommand command_;
};

}  // namespace gpukill::testing

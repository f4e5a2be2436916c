// The population the sweep is timed on: many idle processes with realistic open files,
// a few of which hold fake NVIDIA device nodes.
//
// The device nodes are regular files in a temporary devfs (ROOT/dev/nvidia0..7,
// nvidiactl, nvidia-uvm). The sweep, the floor and fuser only look at fd link targets
// (fuser at the files' device and inode), so regular files stand in for character
// devices without root or a driver.
//
// Lifetime: every child is forked by this object, sits in one process group of its own
// and blocks in read() on a pipe whose only writer is the parent. The destructor sends
// SIGKILL to that group and reaps every child; if the parent dies without running it
// (SIGKILL), the children read EOF on that pipe and exit by themselves.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "temp_tree.hpp"

namespace gpukill::bench {

struct PopulationConfig {
    std::size_t processes = 3000;
    std::size_t fds_per_process = 20;  // holders add their device fds on top
    std::size_t holders = 64;          // at least 1, at most processes
};

// The forked children: one process group, one release pipe.
class ChildGroup {
  public:
    ChildGroup();
    ~ChildGroup();  // SIGKILL to the group, then reap every child
    ChildGroup(const ChildGroup&) = delete;
    ChildGroup& operator=(const ChildGroup&) = delete;

    int release_read_fd() const { return release_read_; }
    pid_t pgid() const { return pgid_; }
    const std::vector<pid_t>& pids() const { return pids_; }

    // Records a forked child and puts it in the group (the first child founds it).
    void adopt(pid_t pid);

  private:
    int release_read_ = -1;   // children block reading this
    int release_write_ = -1;  // held only by the parent: its closing is the children's EOF
    pid_t pgid_ = 0;
    std::vector<pid_t> pids_;
};

class Population {
  public:
    // Forks the population and returns once every child has opened its files. Throws
    // std::runtime_error when a limit is too low or a child fails, Interrupted on a signal;
    // the children already started are killed and reaped either way.
    explicit Population(const PopulationConfig& config);

    const std::string& root() const { return tree_.root(); }
    const std::string& devfs() const { return devfs_; }  // canonical, no trailing '/'
    // The device files, absolute: exactly what fuser is given.
    const std::vector<std::string>& device_files() const { return device_files_; }
    // Holder PID -> the device nodes it holds, relative to devfs, sorted.
    const std::map<pid_t, std::vector<std::string>>& expected_holders() const { return expected_; }
    std::vector<pid_t> holder_pids() const;
    std::size_t size() const { return children_.pids().size(); }

  private:
    void create_files();
    void start_children(const PopulationConfig& config, int ready_fd);
    void await_children(int ready_fd, std::size_t count);

    TempTree tree_{"gpukill-bench-population"};  // first: destroyed after the children are gone
    ChildGroup children_;
    std::string devfs_;
    std::string data_file_;
    std::vector<std::string> device_files_;
    std::map<pid_t, std::vector<std::string>> expected_;
};

}  // namespace gpukill::bench

// A real Slurm controller for tests: munged and slurmctld (Debian's slurmctld and munge
// packages) started in a private directory with a key made now, a loopback port chosen
// now and a first job id unique to this test process, so tests running side by side
// never share a job id (nor the cgroup named after it). Jobs are submitted held: the
// controller keeps their record (account, user) without any slurmd to run them. Both
// daemons are this fixture's children, stopped (SIGTERM, then SIGKILL) and reaped by
// its destructor.
#pragma once

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>

namespace gpukill::testing {

class SlurmController {
  public:
    SlurmController();
    ~SlurmController();
    SlurmController(const SlurmController&) = delete;
    SlurmController& operator=(const SlurmController&) = delete;

    // Empty when it could not start: not root, or Slurm or munge is not installed.
    const std::optional<std::string>& unavailable() const { return unavailable_; }

    // A held job under `account` (sbatch --hold --account), its id as Slurm gave it.
    std::string submit_held(const std::string& account);

    // The environment scontrol and sbatch need to reach this controller.
    std::map<std::string, std::string> env() const { return {{"SLURM_CONF", conf_}}; }

  private:
    std::string dir_;
    std::string conf_;
    pid_t munged_ = -1;
    pid_t slurmctld_ = -1;
    std::optional<std::string> unavailable_;
};

}  // namespace gpukill::testing

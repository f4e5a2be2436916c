// Which Slurm account a job runs under, asked of Slurm itself. A process's job id comes
// from the cgroup slurmd put it in (parse_slurm_job, kernel-kept); its account from
// slurmctld's record of that job, through `scontrol --oneliner show job ID`. Never from
// SLURM_JOB_ACCOUNT in the process's environment: any process sets that for itself, and
// a guard policy's project membership decides whose job is terminated.
//
// Answers are kept per job id (an account never changes while the job runs) for
// `keep`, a failed or empty answer for `retry_after`, and at most kMaxJobs ids: a node
// running weeks of jobs holds no more than that. One scontrol run is bounded in time
// and output (ProgramOptions below).
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace gpukill {

// The Account= of job `job_id` in scontrol's one-line records (`scontrol -o show job`):
// the line whose JobId is exactly `job_id`. Empty for another job's line, a missing or
// "(null)" account, or text that is no record (an error message). Pure.
std::optional<std::string> parse_scontrol_account(std::string_view records,
                                                  std::string_view job_id);

class SlurmAccounts {
  public:
    using Clock = std::chrono::steady_clock;
    static constexpr std::size_t kMaxJobs = 4096;

    // `scontrol`: the program's path; empty when Slurm's client is not installed (every
    // account is then unknown, and `problem()` says why).
    explicit SlurmAccounts(std::optional<std::string> scontrol,
                           std::chrono::seconds keep = std::chrono::minutes(10),
                           std::chrono::seconds retry_after = std::chrono::seconds(30));

    // The account of job `job_id` (decimal digits, as parse_slurm_job gives it).
    std::optional<std::string> account_of(const std::string& job_id, Clock::time_point now);

    // Why accounts could not be asked for (no scontrol, it failed or timed out), for a
    // note; empty when the last question was answered.
    const std::optional<std::string>& problem() const { return problem_; }

  private:
    struct Answer {
        std::optional<std::string> account;
        Clock::time_point until;
    };
    std::optional<std::string> ask(const std::string& job_id);
    void forget_expired(Clock::time_point now);

    std::optional<std::string> scontrol_;
    std::chrono::seconds keep_;
    std::chrono::seconds retry_after_;
    std::map<std::string, Answer> answers_;
    std::optional<std::string> problem_;
};

}  // namespace gpukill

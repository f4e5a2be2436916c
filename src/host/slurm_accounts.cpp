#include "host/slurm_accounts.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "host/run_program.hpp"
#include "model/human_format.hpp"

namespace gpukill {
namespace {

// One scontrol question: slurmctld answers in milliseconds; a controller that is down
// makes scontrol retry for its own MessageTimeout (10 s by default), which a guard cycle
// must not wait out every time (retry_after keeps the failure).
constexpr double kScontrolTimeoutSeconds = 5;
constexpr std::size_t kScontrolOutputBytes = 256 * 1024;

// The value of `key=` among a record's space-separated fields, or empty.
std::optional<std::string_view> field_value(std::string_view record, std::string_view key) {
    std::size_t at = 0;
    while (at < record.size()) {
        const std::size_t end = std::min(record.find(' ', at), record.size());
        const std::string_view field = record.substr(at, end - at);
        if (field.size() > key.size() && field.starts_with(key) && field[key.size()] == '=') {
            return field.substr(key.size() + 1);
        }
        at = end + 1;
    }
    return std::nullopt;
}

bool is_job_id(std::string_view text) {
    return !text.empty() && text.size() <= 20 &&
           std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::optional<std::string> parse_scontrol_account(std::string_view records,
                                                  std::string_view job_id) {
    while (!records.empty()) {
        const std::size_t end = std::min(records.find('\n'), records.size());
        const std::string_view record = records.substr(0, end);
        records.remove_prefix(std::min(end + 1, records.size()));
        if (!record.starts_with("JobId=") || field_value(record, "JobId") != job_id) continue;
        const auto account = field_value(record, "Account");
        if (!account || account->empty() || *account == "(null)") return std::nullopt;
        return std::string(*account);
    }
    return std::nullopt;
}

SlurmAccounts::SlurmAccounts(std::optional<std::string> scontrol, std::chrono::seconds keep,
                             std::chrono::seconds retry_after)
    : scontrol_(std::move(scontrol)), keep_(keep), retry_after_(retry_after) {}

std::optional<std::string> SlurmAccounts::account_of(const std::string& job_id,
                                                     Clock::time_point now) {
    if (!is_job_id(job_id)) return std::nullopt;
    if (auto known = answers_.find(job_id); known != answers_.end() && known->second.until > now) {
        return known->second.account;
    }
    forget_expired(now);
    std::optional<std::string> account = ask(job_id);
    if (answers_.size() >= kMaxJobs) answers_.erase(answers_.begin());
    answers_[job_id] = Answer{account, now + (account ? keep_ : retry_after_)};
    return account;
}

std::optional<std::string> SlurmAccounts::ask(const std::string& job_id) {
    if (!scontrol_) {
        problem_ = "Slurm accounts are unknown: scontrol is not installed (or not on PATH)";
        return std::nullopt;
    }
    auto run = run_program({*scontrol_, "--oneliner", "show", "job", job_id},
                           ProgramOptions{.timeout_seconds = kScontrolTimeoutSeconds,
                                          .kill_grace_seconds = 1,
                                          .max_output_bytes = kScontrolOutputBytes});
    if (!run) {
        problem_ = fmt::format("Slurm accounts are unknown: {}", run.error().what);
        return std::nullopt;
    }
    if (run->timed_out) {
        problem_ = fmt::format("Slurm accounts are unknown: scontrol did not answer in {:g} s",
                               kScontrolTimeoutSeconds);
        return std::nullopt;
    }
    // A finished job is no longer known to slurmctld ("Invalid job id specified"): not a
    // problem of the lookup. Anything else that failed is (the controller is down).
    if (run->exit_status != 0 && run->output.find("Invalid job id") == std::string::npos) {
        const std::string_view output = run->output;
        const std::string_view first =
            output.substr(0, std::min<std::size_t>(output.find('\n'), 200));
        problem_ = fmt::format("Slurm accounts are unknown: scontrol failed: {}", printable(first));
        return std::nullopt;
    }
    problem_.reset();
    return parse_scontrol_account(run->output, job_id);
}

void SlurmAccounts::forget_expired(Clock::time_point now) {
    std::erase_if(answers_, [now](const auto& entry) { return entry.second.until <= now; });
}

}  // namespace gpukill

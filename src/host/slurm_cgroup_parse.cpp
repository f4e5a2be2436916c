// parse_slurm_job: the rules are at its declaration in proc_parse.hpp.
#include <string>

#include "host/proc_parse.hpp"
#include "model/parse_util.hpp"

namespace gpukill {
namespace {

// "<prefix><name>" with a non-empty name of digits (or, for steps, letters too).
std::optional<std::string_view> slurm_segment_value(std::string_view segment,
                                                    std::string_view prefix, bool digits_only) {
    if (!segment.starts_with(prefix) || segment.size() == prefix.size()) return std::nullopt;
    const std::string_view value = segment.substr(prefix.size());
    for (char c : value) {
        const bool digit = c >= '0' && c <= '9';
        const bool letter = (c >= 'a' && c <= 'z') || c == '_';
        if (!digit && (digits_only || !letter)) return std::nullopt;
    }
    return value;
}

std::optional<SlurmJobInfo> slurm_job_in_path(std::string_view path) {
    bool under_slurm = false;
    std::optional<uid_t> uid;
    std::optional<SlurmJobInfo> job;
    while (!path.empty()) {
        const auto slash = path.find('/');
        const std::string_view segment = path.substr(0, slash);
        path.remove_prefix(slash == std::string_view::npos ? path.size() : slash + 1);
        if (segment.empty()) continue;
        if (job) {
            if (auto step = slurm_segment_value(segment, "step_", false)) job->step = *step;
            break;
        }
        if (segment.starts_with("slurm")) {
            under_slurm = true;
        } else if (!under_slurm) {
            continue;
        } else if (auto number = slurm_segment_value(segment, "uid_", true)) {
            uid = text::parse_int<uid_t>(*number);
        } else if (auto id = slurm_segment_value(segment, "job_", true)) {
            job = SlurmJobInfo{.job_id = std::string(*id), .step = std::nullopt, .uid = uid};
        }
    }
    return job;
}

}  // namespace

std::optional<SlurmJobInfo> parse_slurm_job(std::string_view text) {
    while (!text.empty()) {
        const auto newline = text.find('\n');
        std::string_view line = text.substr(0, newline);
        text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
        // "ID:CONTROLLERS:PATH"; the path may itself hold ':'.
        const auto first = line.find(':');
        const auto second = first == std::string_view::npos ? first : line.find(':', first + 1);
        if (second == std::string_view::npos) continue;
        std::string_view path = line.substr(second + 1);
        constexpr std::string_view deleted = " (deleted)";
        if (path.ends_with(deleted)) path.remove_suffix(deleted.size());
        if (auto job = slurm_job_in_path(path)) return job;
    }
    return std::nullopt;
}

}  // namespace gpukill

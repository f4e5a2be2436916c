// Memory and process-count limits per user (defaults, users:, time windows), per group
// and per project: aggregate limits, so the newest processes are chosen until the rest
// fit; and a project's allowed GPUs.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "guard/rules.hpp"

namespace gpukill::guard::rules {
namespace {

struct Effective {
    std::uint64_t value = 0;
    std::string rule_id;
    Enforcement enforcement;
};

const UserRule* user_rule(const Policy& policy, const std::string& user) {
    for (const UserRule& rule : policy.users) {
        if (rule.user == user) return &rule;
    }
    return nullptr;
}

// The most specific limit wins: an active window's entry for the user, the user's own
// entry, an active window's limit for everyone, then the defaults.
template <class T>
std::optional<Effective> effective(const Policy& policy,
                                   const std::vector<const TimeWindow*>& active,
                                   const std::string& user, std::optional<T> Limits::*field,
                                   std::string_view key) {
    for (const TimeWindow* window : active) {
        auto entry = window->users.find(user);
        if (entry != window->users.end() && entry->second.*field) {
            return Effective{*(entry->second.*field),
                             fmt::format("windows.{}.users.{}.{}", window->name, user, key),
                             window->enforcement};
        }
    }
    if (const UserRule* rule = user_rule(policy, user); rule && rule->limits.*field) {
        return Effective{*(rule->limits.*field), fmt::format("users.{}.{}", user, key),
                         rule->enforcement};
    }
    for (const TimeWindow* window : active) {
        if (window->limits.*field) {
            return Effective{*(window->limits.*field),
                             fmt::format("windows.{}.{}", window->name, key), window->enforcement};
        }
    }
    if (policy.defaults.*field) {
        return Effective{*(policy.defaults.*field), fmt::format("defaults.{}", key),
                         policy.defaults_enforcement};
    }
    return std::nullopt;
}

// Checks one set of processes (a user's or a group's) against a memory limit and a
// process-count limit. `who` starts the explanation: "alice's", "group interns's".
void check_aggregate(const Context& context, const std::vector<std::size_t>& members,
                     const std::string& who, const std::optional<Effective>& memory,
                     const std::optional<Effective>& count, std::vector<Violation>& out) {
    if (members.empty()) return;
    if (memory) {
        std::uint64_t total = 0;
        for (std::size_t index : members) total += context.candidates[index].memory_bytes;
        if (total > memory->value) {
            const std::uint64_t excess = total - memory->value;
            auto memory_of = [&](std::size_t index) {
                return context.candidates[index].memory_bytes;
            };
            for (std::size_t index : newest_covering(context, members, excess, memory_of)) {
                out.push_back(Violation{
                    index, memory->rule_id,
                    fmt::format("{} {} {} {} of GPU memory, above the limit of {}; this one "
                                "holds {} and is among the newest that cover the {} over",
                                who, members.size(),
                                members.size() == 1 ? "process uses" : "processes use",
                                describe_bytes(total), describe_bytes(memory->value),
                                describe_bytes(memory_of(index)), describe_bytes(excess)),
                    memory->enforcement});
            }
        }
    }
    if (count && members.size() > count->value) {
        const std::uint64_t excess = members.size() - count->value;
        for (std::size_t index :
             newest_covering(context, members, excess, [](std::size_t) { return 1; })) {
            out.push_back(Violation{
                index, count->rule_id,
                fmt::format("{} {} processes hold GPUs, above the limit of {}; this is one of "
                            "the {} newest",
                            who, members.size(), count->value, excess),
                count->enforcement});
        }
    }
}

}  // namespace

void limit_violations(const Context& context, std::vector<Violation>& out) {
    const Policy& policy = context.input.policy;
    std::vector<const TimeWindow*> active;
    for (const TimeWindow& window : policy.windows) {
        if (window_active(window, context.input.clock.local)) active.push_back(&window);
    }
    // Protected processes count towards no limit.
    std::map<std::string, std::vector<std::size_t>> by_user;
    for (std::size_t index = 0; index < context.candidates.size(); ++index) {
        const Candidate& candidate = context.candidates[index];
        if (candidate.protected_because || candidate.user().empty()) continue;
        by_user[candidate.user()].push_back(index);
    }
    for (const auto& [user, members] : by_user) {
        check_aggregate(context, members, user + "'s",
                        effective(policy, active, user, &Limits::memory_bytes, "memory_limit"),
                        effective(policy, active, user, &Limits::max_processes, "max_processes"),
                        out);
    }
    for (const GroupRule& group : policy.groups) {
        const std::set<std::string>* members = nullptr;
        if (group.members) {
            members = &*group.members;
        } else if (auto found = context.input.unix_group_members.find(group.name);
                   found != context.input.unix_group_members.end()) {
            members = &found->second;
        }
        if (members == nullptr) continue;  // an unknown Unix group has no members
        std::vector<std::size_t> indices;
        for (const auto& [user, user_members] : by_user) {
            if (!members->contains(user)) continue;
            indices.insert(indices.end(), user_members.begin(), user_members.end());
        }
        auto limit = [&](auto field, std::string_view key) -> std::optional<Effective> {
            if (!(group.limits.*field)) return std::nullopt;
            return Effective{*(group.limits.*field), fmt::format("groups.{}.{}", group.name, key),
                             group.enforcement};
        };
        check_aggregate(context, indices, fmt::format("group {}'s", group.name),
                        limit(&Limits::memory_bytes, "memory_limit"),
                        limit(&Limits::max_processes, "max_processes"), out);
    }
}

std::optional<ProjectMembership> project_of(const Context& context, const Candidate& candidate) {
    const ProcessInfo& info = candidate.info();
    const auto facts_found = context.input.project_facts.find({info.pid, info.start_time_ticks});
    const ProjectFacts* facts =
        facts_found == context.input.project_facts.end() ? nullptr : &facts_found->second;
    for (const ProjectRule& project : context.input.policy.projects) {
        const ProjectMatch& match = project.match;
        if (facts && facts->kubernetes_namespace &&
            match.kubernetes_namespaces.contains(*facts->kubernetes_namespace)) {
            return ProjectMembership{
                &project, fmt::format("Kubernetes namespace {}", *facts->kubernetes_namespace)};
        }
        if (facts && facts->slurm_account && match.slurm_accounts.contains(*facts->slurm_account)) {
            return ProjectMembership{&project,
                                     fmt::format("Slurm account {}", *facts->slurm_account)};
        }
        if (info.slurm_job && match.slurm_jobs.contains(info.slurm_job->job_id)) {
            return ProjectMembership{&project, fmt::format("Slurm job {}", info.slurm_job->job_id)};
        }
        for (const std::string& group : match.unix_groups) {
            const auto members = context.input.unix_group_members.find(group);
            if (members != context.input.unix_group_members.end() &&
                members->second.contains(candidate.user())) {
                return ProjectMembership{
                    &project, fmt::format("{} is in the Unix group {}", candidate.user(), group)};
            }
        }
    }
    return std::nullopt;
}

void project_violations(const Context& context, std::vector<Violation>& out) {
    const Policy& policy = context.input.policy;
    if (policy.projects.empty()) return;
    std::map<const ProjectRule*, std::vector<std::size_t>> members;
    std::map<std::size_t, std::string> why_member;
    for (std::size_t index = 0; index < context.candidates.size(); ++index) {
        const Candidate& candidate = context.candidates[index];
        if (candidate.protected_because) continue;  // counted towards no limit
        auto membership = project_of(context, candidate);
        if (!membership) continue;
        members[membership->project].push_back(index);
        why_member[index] = std::move(membership->why);
    }
    for (const ProjectRule& project : policy.projects) {
        const auto found = members.find(&project);
        if (found == members.end()) continue;
        std::vector<Violation> found_violations;
        auto limit = [&](auto field, std::string_view key) -> std::optional<Effective> {
            if (!(project.limits.*field)) return std::nullopt;
            return Effective{*(project.limits.*field),
                             fmt::format("projects.{}.{}", project.name, key), project.enforcement};
        };
        check_aggregate(context, found->second, fmt::format("project {}'s", project.name),
                        limit(&Limits::memory_bytes, "memory_limit"),
                        limit(&Limits::max_processes, "max_processes"), found_violations);
        if (project.allowed_gpus) {
            for (std::size_t index : found->second) {
                for (const ProcessGpuUse& use : context.candidates[index].process->gpus) {
                    if (project.allowed_gpus->contains(use.gpu_index)) continue;
                    found_violations.push_back(Violation{
                        index, fmt::format("projects.{}.allowed_gpus", project.name),
                        fmt::format("project {} may use GPUs {}, and this process holds GPU {}",
                                    project.name, fmt::join(*project.allowed_gpus, ", "),
                                    use.gpu_index),
                        project.enforcement});
                    break;
                }
            }
        }
        // Say why the process was counted in the project: the admin reading `guard test`
        // must see which fact put it there.
        for (Violation& violation : found_violations) {
            violation.why += fmt::format(" (counted in project {}: {})", project.name,
                                         why_member[violation.candidate]);
            out.push_back(std::move(violation));
        }
    }
}

}  // namespace gpukill::guard::rules

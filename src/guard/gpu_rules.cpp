// Who may use which GPU: gpus: (allowed users and executables, a per-user memory limit,
// exclusive use, reserved memory) and users: (allowed and blocked GPUs).
#include <fmt/format.h>

#include <algorithm>

#include "guard/rules.hpp"
#include "model/quoted_text.hpp"

namespace gpukill::guard::rules {
namespace {

constexpr std::size_t kCommLength = 15;  // the kernel cuts comm to this

std::string basename_of(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string join(const std::set<std::string>& names) {
    std::string out;
    for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
    return out;
}

}  // namespace

bool executable_listed(const ProcessInfo& info, const std::set<std::string>& entries) {
    for (const std::string& entry : entries) {
        if (entry.find('/') != std::string::npos) {
            if (info.exe && *info.exe == entry) return true;
            continue;
        }
        if (!info.comm.empty() && info.comm == entry.substr(0, kCommLength)) return true;
        if (info.exe && basename_of(*info.exe) == entry) return true;
    }
    return false;
}

namespace {

void check_user_gpus(const Context& context, std::vector<Violation>& out) {
    for (const UserRule& rule : context.input.policy.users) {
        for (std::size_t index = 0; index < context.candidates.size(); ++index) {
            const Candidate& candidate = context.candidates[index];
            if (candidate.user() != rule.user) continue;
            for (const ProcessGpuUse& use : candidate.process->gpus) {
                if (!use.known()) continue;  // it only may be there (/dev/kfd alone)
                if (rule.allowed_gpus && !rule.allowed_gpus->contains(use.gpu_index)) {
                    out.push_back(Violation{
                        index, fmt::format("users.{}.allowed_gpus", rule.user),
                        fmt::format("{} is not allowed on GPU {}", rule.user, use.gpu_index),
                        rule.enforcement});
                }
                if (rule.blocked_gpus.contains(use.gpu_index)) {
                    out.push_back(Violation{
                        index, fmt::format("users.{}.blocked_gpus", rule.user),
                        fmt::format("{} is blocked from GPU {}", rule.user, use.gpu_index),
                        rule.enforcement});
                }
            }
        }
    }
}

// The user whose process on the GPU started first (among the allowed users, when the
// GPU lists them): the one an exclusive GPU belongs to for now.
std::optional<std::string> exclusive_owner(const Context& context, const GpuRule& gpu,
                                           const std::vector<std::size_t>& on_gpu) {
    const Candidate* first = nullptr;
    for (std::size_t index : on_gpu) {
        const Candidate& candidate = context.candidates[index];
        if (candidate.protected_because || candidate.user().empty()) continue;
        if (gpu.allowed_users && !gpu.allowed_users->contains(candidate.user())) continue;
        const ProcessInfo& info = candidate.info();
        if (first == nullptr || info.start_time_ticks < first->info().start_time_ticks ||
            (info.start_time_ticks == first->info().start_time_ticks &&
             info.pid < first->info().pid)) {
            first = &candidate;
        }
    }
    if (first == nullptr) return std::nullopt;
    return first->user();
}

void check_gpu(const Context& context, const GpuRule& gpu, std::vector<Violation>& out) {
    const std::string id = fmt::format("gpus.{}", gpu.index);
    std::vector<std::size_t> on_gpu;
    for (std::size_t index = 0; index < context.candidates.size(); ++index) {
        if (context.candidates[index].on_gpu(gpu.index)) on_gpu.push_back(index);
    }
    auto add = [&](std::size_t index, std::string_view key, std::string why) {
        out.push_back(
            Violation{index, fmt::format("{}.{}", id, key), std::move(why), gpu.enforcement});
    };
    const std::optional<std::string> owner =
        gpu.exclusive ? exclusive_owner(context, gpu, on_gpu) : std::nullopt;
    for (std::size_t index : on_gpu) {
        const Candidate& candidate = context.candidates[index];
        const ProcessInfo& info = candidate.info();
        if (gpu.allowed_users && !gpu.allowed_users->contains(candidate.user())) {
            add(index, "allowed_users",
                fmt::format("GPU {} is for {}; {} is not one of them", gpu.index,
                            join(*gpu.allowed_users), candidate.user()));
        }
        if (gpu.allowed_executables && !executable_listed(info, *gpu.allowed_executables)) {
            add(index, "allowed_executables",
                fmt::format("GPU {} is for {}; {} ({}) is not one of them", gpu.index,
                            join(*gpu.allowed_executables), quote_escaped(info.comm),
                            info.exe ? quote_escaped(*info.exe) : "executable unknown"));
        }
        if (owner && candidate.user() != *owner && !candidate.protected_because) {
            add(index, "exclusive",
                fmt::format("GPU {} is exclusive and {} holds it (their process started first)",
                            gpu.index, *owner));
        }
    }
    auto memory_on_gpu = [&](std::size_t index) {
        return context.candidates[index].memory_on(gpu.index);
    };
    if (gpu.user_memory_limit_bytes) {
        std::map<std::string, std::vector<std::size_t>> by_user;
        for (std::size_t index : on_gpu) {
            if (context.candidates[index].protected_because) continue;
            by_user[context.candidates[index].user()].push_back(index);
        }
        for (const auto& [user, members] : by_user) {
            std::uint64_t total = 0;
            for (std::size_t index : members) total += memory_on_gpu(index);
            if (total <= *gpu.user_memory_limit_bytes) continue;
            const std::uint64_t excess = total - *gpu.user_memory_limit_bytes;
            for (std::size_t index : newest_covering(context, members, excess, memory_on_gpu)) {
                add(index, "user_memory_limit",
                    fmt::format("{} uses {} on GPU {}, above the per-user limit of {}; this one "
                                "holds {} and is among the newest that cover the {} over",
                                user, describe_bytes(total), gpu.index,
                                describe_bytes(*gpu.user_memory_limit_bytes),
                                describe_bytes(memory_on_gpu(index)), describe_bytes(excess)));
            }
        }
    }
    if (gpu.reserved_memory_bytes) {
        std::optional<std::uint64_t> total_memory;
        for (const Gpu& reading : context.input.snapshot.gpus) {
            if (reading.index == gpu.index) total_memory = reading.reading.memory_total_bytes;
        }
        if (!total_memory) return;  // unknown size: nothing to compare with
        const std::uint64_t available = *total_memory > *gpu.reserved_memory_bytes
                                            ? *total_memory - *gpu.reserved_memory_bytes
                                            : 0;
        std::vector<std::size_t> others;
        std::uint64_t used = 0;
        for (std::size_t index : on_gpu) {
            const Candidate& candidate = context.candidates[index];
            if (candidate.protected_because) continue;
            if (gpu.allowed_users && gpu.allowed_users->contains(candidate.user())) continue;
            others.push_back(index);
            used += memory_on_gpu(index);
        }
        if (used <= available) return;
        const std::string whose = gpu.allowed_users ? "processes of other users" : "processes";
        for (std::size_t index :
             newest_covering(context, others, used - available, memory_on_gpu)) {
            add(index, "reserved_memory",
                fmt::format("{} use {} of GPU {}, which keeps {} of its {} reserved; this one "
                            "holds {} and is among the newest that cover the {} over",
                            whose, describe_bytes(used), gpu.index,
                            describe_bytes(*gpu.reserved_memory_bytes),
                            describe_bytes(*total_memory), describe_bytes(memory_on_gpu(index)),
                            describe_bytes(used - available)));
        }
    }
}

}  // namespace

void gpu_violations(const Context& context, std::vector<Violation>& out) {
    check_user_gpus(context, out);
    for (const GpuRule& gpu : context.input.policy.gpus) check_gpu(context, gpu, out);
}

}  // namespace gpukill::guard::rules

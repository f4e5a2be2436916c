// Contradictions between sections of guard.yaml: each is reported at the entry that
// completes it (the later one in the file), naming the other.
#include <fmt/format.h>

#include "guard/policy_sections.hpp"
#include "guard/time_window.hpp"
#include "model/quoted_text.hpp"

namespace gpukill::guard::sections {
namespace {

YAML::Mark to_mark(SourceMark mark) {
    YAML::Mark out;
    out.line = mark.line - 1;
    out.column = mark.column - 1;
    return out;
}

const GpuRule* gpu_rule(const Policy& policy, unsigned index) {
    for (const GpuRule& gpu : policy.gpus) {
        if (gpu.index == index) return &gpu;
    }
    return nullptr;
}

// A user allowed a GPU by users: that gpus: keeps to others, or blocked from a GPU that
// gpus: names them for. Either way one section says yes and the other no.
Result<void> check_users_against_gpus(const YamlReader& fields, const Policy& policy) {
    for (const UserRule& user : policy.users) {
        if (user.allowed_gpus) {
            for (unsigned index : *user.allowed_gpus) {
                const GpuRule* gpu = gpu_rule(policy, index);
                if (gpu && gpu->allowed_users && !gpu->allowed_users->contains(user.user)) {
                    return fields.error(
                        to_mark(user.mark),
                        fmt::format("users.{} allows GPU {}, but gpus.{} (line {}) does not list "
                                    "{} in allowed_users",
                                    user.user, index, index, gpu->mark.line, user.user));
                }
            }
        }
        for (unsigned index : user.blocked_gpus) {
            const GpuRule* gpu = gpu_rule(policy, index);
            if (gpu && gpu->allowed_users && gpu->allowed_users->contains(user.user)) {
                return fields.error(
                    to_mark(user.mark),
                    fmt::format("users.{} blocks GPU {}, but gpus.{} (line {}) lists {} in "
                                "allowed_users",
                                user.user, index, index, gpu->mark.line, user.user));
            }
        }
    }
    return {};
}

// The limit two overlapping windows disagree on, if any ("memory_limit 8G against 16G").
std::optional<std::string> disagreement(const Limits& a, const Limits& b) {
    if (a.memory_bytes && b.memory_bytes && *a.memory_bytes != *b.memory_bytes) {
        return fmt::format("memory_limit {} bytes against {} bytes", *a.memory_bytes,
                           *b.memory_bytes);
    }
    if (a.max_processes && b.max_processes && *a.max_processes != *b.max_processes) {
        return fmt::format("max_processes {} against {}", *a.max_processes, *b.max_processes);
    }
    return std::nullopt;
}

// Overlapping windows that set different values for the same limit of the same users
// would make the limit depend on the order of the file: refused. Overlaps that agree,
// or that limit different things, are fine (both apply).
Result<void> check_windows(const YamlReader& fields, const Policy& policy) {
    for (std::size_t later = 0; later < policy.windows.size(); ++later) {
        const TimeWindow& b = policy.windows[later];
        for (std::size_t earlier = 0; earlier < later; ++earlier) {
            const TimeWindow& a = policy.windows[earlier];
            auto common = first_common_minute(a, b);
            if (!common) continue;
            std::optional<std::string> conflict = disagreement(a.limits, b.limits);
            std::string subject = "every user";
            for (const auto& [user, limits] : b.users) {
                if (conflict) break;
                auto other = a.users.find(user);
                if (other == a.users.end()) continue;
                conflict = disagreement(other->second, limits);
                subject = user;
            }
            if (conflict) {
                return fields.error(
                    to_mark(b.mark),
                    fmt::format("windows.{} overlaps windows.{} (line {}) from {} and sets a "
                                "different limit for {}: {}",
                                b.name, a.name, a.mark.line, format_minute_of_week(*common),
                                subject, *conflict));
            }
        }
    }
    return {};
}

}  // namespace

Result<void> check_consistency(const YamlReader& fields, const Policy& policy) {
    if (auto checked = check_users_against_gpus(fields, policy); !checked) return checked;
    return check_windows(fields, policy);
}

}  // namespace gpukill::guard::sections

#include "guard/unix_groups.hpp"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <optional>
#include <vector>

namespace gpukill::guard {
namespace {

struct GroupEntry {
    gid_t gid = 0;
    std::set<std::string> members;
};

std::size_t buffer_size(int name) {
    const long suggested = ::sysconf(name);
    return suggested > 0 ? static_cast<std::size_t>(suggested) : 4096;
}

std::optional<GroupEntry> lookup_group(const std::string& name) {
    std::vector<char> buffer(buffer_size(_SC_GETGR_R_SIZE_MAX));
    while (true) {
        group entry{};
        group* result = nullptr;
        const int rc = ::getgrnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &result);
        if (rc == ERANGE && buffer.size() < (1U << 24)) {  // large groups: grow and retry
            buffer.resize(buffer.size() * 2);
            continue;
        }
        if (rc != 0 || result == nullptr) return std::nullopt;
        GroupEntry out{.gid = entry.gr_gid, .members = {}};
        for (char** member = entry.gr_mem; member != nullptr && *member != nullptr; ++member) {
            out.members.insert(*member);
        }
        return out;
    }
}

std::optional<gid_t> primary_group(const std::string& user) {
    std::vector<char> buffer(buffer_size(_SC_GETPW_R_SIZE_MAX));
    while (true) {
        passwd entry{};
        passwd* result = nullptr;
        const int rc = ::getpwnam_r(user.c_str(), &entry, buffer.data(), buffer.size(), &result);
        if (rc == ERANGE && buffer.size() < (1U << 20)) {
            buffer.resize(buffer.size() * 2);
            continue;
        }
        if (rc != 0 || result == nullptr) return std::nullopt;
        return entry.pw_gid;
    }
}

}  // namespace

std::map<std::string, std::set<std::string>> resolve_unix_groups(const Policy& policy,
                                                                 const Snapshot& snapshot) {
    std::map<std::string, std::set<std::string>> resolved;
    std::map<std::string, std::optional<gid_t>> primary;  // one lookup per user
    // The groups named by name: groups: entries without members, and projects'
    // unix_groups.
    std::set<std::string> names;
    for (const GroupRule& rule : policy.groups) {
        if (!rule.members) names.insert(rule.name);
    }
    for (const ProjectRule& project : policy.projects) {
        names.insert(project.match.unix_groups.begin(), project.match.unix_groups.end());
    }
    for (const std::string& name : names) {
        auto group = lookup_group(name);
        if (!group) continue;
        std::set<std::string>& members = resolved[name];
        members = group->members;
        for (const SnapshotProcess& process : snapshot.processes) {
            const std::string& user = process.info.user;
            if (user.empty()) continue;
            auto [at, fresh] = primary.try_emplace(user);
            if (fresh) at->second = primary_group(user);
            if (at->second && *at->second == group->gid) members.insert(user);
        }
    }
    return resolved;
}

}  // namespace gpukill::guard

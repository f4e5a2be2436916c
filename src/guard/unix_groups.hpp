// The members of the Unix groups a policy names (groups: without members:), resolved
// at the edge so the evaluator stays pure: the group's member list (getgrnam_r) plus
// every user in the snapshot whose primary group it is (getpwnam_r), since a primary
// group's members are usually not listed in /etc/group.
#pragma once

#include <map>
#include <set>
#include <string>

#include "model/guard_policy.hpp"
#include "model/snapshot.hpp"

namespace gpukill::guard {

// A group that does not exist resolves to no members (and its limits bind no one).
std::map<std::string, std::set<std::string>> resolve_unix_groups(const Policy& policy,
                                                                 const Snapshot& snapshot);

}  // namespace gpukill::guard

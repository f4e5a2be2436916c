// The allow list: processes a person has vouched for. Exact matches only, never
// substrings or patterns, so allowing "python" never allows "python-xmrig". Pure.
//
//   users:        the account name, or the uid written as digits
//   executables:  the absolute executable path; a deleted executable is not allowed
//                 (the path no longer names the program that runs)
//   names:        comm equal to the entry AND an executable that is that program (same
//                 name, or a versioned file such as python3.11 for "python"): a miner
//                 that renames itself "python" is not allowed by "python". When the
//                 executable cannot be read, a name allows nothing.
// Allowed processes are still judged and reported as allowed, with the entry that
// allowed them.
#pragma once

#include <optional>
#include <string>

#include "detect/rogue_config.hpp"
#include "model/process.hpp"

namespace gpukill::detect {

struct AllowMatch {
    std::string kind;   // "user", "executable" or "name"
    std::string entry;  // the list entry that matched
};

std::optional<AllowMatch> allowed_by(const ProcessInfo& info, const AllowList& allow);

}  // namespace gpukill::detect

// Editing the guard policy file in place, for gpu-kill's --guard-* flags: only the lines
// that change are rewritten (comments stay), the result must load cleanly, and it
// replaces the file atomically (write, fsync, rename), audited as guard_policy_changed
// naming the actor. Also `guard check FILE`: the file read as guard run reads it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "model/actor.hpp"
#include "model/result.hpp"

namespace gpukill::engine {

// One change at a time; the settings go with an add.
struct PolicyEditRequest {
    bool enable = false;   // mode dry-run when it was off, else as it was
    bool disable = false;  // mode off
    bool dry_run = false;
    bool enforce = false;
    bool print_config = false;                 // the policy in effect, with a header line
    bool export_config = false;                // the policy as it is
    std::optional<std::string> import_config;  // a file, checked, to become the policy
    std::optional<std::string> add_user, remove_user;
    std::optional<std::string> add_group, remove_group;
    std::optional<unsigned> add_gpu, remove_gpu;
    // Settings of what is added (or changed).
    std::optional<std::string> memory_limit;  // a bare number is GiB, as gpu-kill's GB
    std::optional<unsigned> max_processes;
    std::vector<std::string> group_members;
    std::vector<std::string> allowed_users;
    std::vector<std::string> allowed_executables;
    bool exclusive = false;
    std::optional<std::string> reserved_memory;
    std::optional<std::string> action;  // warn, terminate or kill
    std::optional<std::string> grace_period;
};

struct PolicyEditOutcome {
    std::string path;
    std::optional<std::string> change;   // what was written, in words ("users.bob removed")
    std::optional<std::string> printed;  // print_config, export_config: the text to show
    std::optional<std::string> audit_problem;
};

// `policy_path` empty: CONFIG_DIR/guard.yaml. Errors: invalid_input (no change, more than
// one, settings that do not go with it, a bad value, a policy that does not load, or a
// change that would make it invalid: nothing written), unavailable (a file that cannot
// be read; printing a policy that does not exist), the write's.
Result<PolicyEditOutcome> edit_policy(Engine& engine, const std::optional<std::string>& policy_path,
                                      const PolicyEditRequest& request, const std::string& command,
                                      const Actor& actor);

// `guard init`: the starter policy (docs/examples/guard.yaml, mode dry-run) written at
// `policy_path` (empty: CONFIG_DIR/guard.yaml), never over an existing file. Errors:
// conflict (the file exists: untouched), the write's.
Result<PolicyEditOutcome> init_policy(Engine& engine, const std::optional<std::string>& policy_path,
                                      const std::string& command, const Actor& actor);

// What `guard check FILE` says of a policy that loads.
struct PolicySummary {
    std::string mode;
    std::size_t users = 0, groups = 0, gpus = 0, windows = 0, rules = 0, projects = 0;
    // In words, as `guard check` prints it: "mode enforce; 1 user, 0 groups, ...".
    std::string contents;
};

// The file read as guard run reads it. Errors: unavailable (missing: the message says
// how to write one; unreadable), invalid_input (malformed, with its line and column).
Result<PolicySummary> check_policy_file(const std::string& path);

}  // namespace gpukill::engine

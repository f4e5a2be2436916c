// `gpukill guard` and its compatible flags: check a policy, test it against the host or
// a saved snapshot, run the enforcement loop (guard_run.hpp), edit the policy file
// (guard_edit.hpp). The options live here; cli/app.cpp only calls add_guard_cli,
// guard_requested and run_guard.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/global_options.hpp"
#include "cli/guard_edit.hpp"
#include "cli/request_options.hpp"

// CLI11 stays out of headers: its header is the slowest part of every file including it.
namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace gpukill::cli {

struct GuardOptions {
    std::optional<std::string> check_file;  // guard check FILE
    std::optional<std::string> policy;      // --policy FILE (default CONFIG_DIR/guard.yaml)
    std::optional<std::string> snapshot;    // --snapshot FILE: a saved `list --json`
    bool once = false;                      // guard run --once: one evaluation cycle
    bool json = false;                      // --json / --output json
    bool compat_guard = false;              // --guard
    bool compat_test = false;               // --guard-test-policies
};

struct GuardCli {
    GuardOptions options;
    CLI::App* command = nullptr;  // `guard`
    CLI::App* init = nullptr;
    CLI::App* check = nullptr;
    CLI::App* test = nullptr;
    CLI::App* run = nullptr;
    std::vector<CLI::Option*> options_given;  // every guard-only option, to tell if any was used
    GuardEditOptions edit;                    // the policy-editing flags
    std::vector<CLI::Option*> edit_options;
};

// Registers the `guard` subcommand (check, test, run) and the guard options on `app`.
void add_guard_cli(CLI::App& app, GuardCli& cli);

// After parsing: `guard` or any guard option was given.
bool guard_requested(const GuardCli& cli);

// After parsing: `guard test` (or --guard-test-policies) alone, which signals nothing.
bool guard_test_requested(const GuardCli& cli);

// `argv` is recorded in the audit log.
int run_guard(const GlobalOptions& global, const GuardCli& cli, const RequestOptions& requests,
              const std::vector<std::string>& argv);

}  // namespace gpukill::cli

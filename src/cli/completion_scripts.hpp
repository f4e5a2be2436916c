// The bash and zsh completions, written from the same options as the help: commands,
// each command's options, and values where they are known (GPU indices and the PIDs
// of GPU holders from `gpukill __complete`, directories, files, the fixed choices of
// --vendor, --output, --signal, --guard-action). Pure.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cli/command_id.hpp"
#include "cli/command_line.hpp"

namespace gpukill::cli {

struct CompletionInput {
    std::map<Command, std::vector<OptionDoc>> options;  // options_for, per command
    std::vector<OptionDoc> top_level;                   // common and compatible forms
};

CompletionInput completion_input(const CommandLine& command_line);

std::string bash_completion(const CompletionInput& input);
std::string zsh_completion(const CompletionInput& input);

}  // namespace gpukill::cli

// What each command is for, how it is called, what it is shown doing and what it exits
// with: the text of `gpukill CMD --help`, `gpukill help CMD`, and the man pages. Which
// options apply to which command is here too, so the help, the man pages, the
// completions and the check that refuses a misplaced option agree (pure data).
#pragma once

#include <string>
#include <vector>

#include "cli/command_id.hpp"

namespace gpukill::cli {

struct Example {
    const char* command;
    const char* meaning;
};

struct ExitCodeDoc {
    const char* code;
    const char* meaning;
};

struct CommandDoc {
    Command command;
    const char* summary;                  // one line, for the command list
    std::vector<const char*> usage;       // synopsis lines, without "gpukill "
    std::vector<const char*> paragraphs;  // what it does, in a few sentences
    std::vector<Example> examples;
    std::vector<ExitCodeDoc> exit_codes;
    const char* see_also;  // the document that says more
};

const CommandDoc& command_doc(Command command);

// gpu-kill's spellings of the commands: flags that name a command (`--kill` is `kill`).
struct CommandFlag {
    const char* long_name;
    const char* short_name;  // "" when it has none
    Command command;
};

const std::vector<CommandFlag>& command_flags();

// An option that applies to some commands only; every option of a command's own
// group (the guard options, check's, doctor's) belongs to that command alone, and the
// host and state options apply everywhere.
struct OptionScope {
    std::string name;  // the long name, with "--"
    std::vector<Command> commands;
};

const std::vector<OptionScope>& option_scopes();

// The commands `long_name` is limited to; empty when it is not in option_scopes().
const std::vector<Command>* scope_of(const std::string& long_name);

}  // namespace gpukill::cli

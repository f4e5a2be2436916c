// The commands of the command line, named once: the parser, the help, the man pages
// and the completions all list them from here.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpukill::cli {

enum class Command { list, kill, reset, audit, guard, doctor, check, agent, top, mcp };

inline constexpr std::array<Command, 10> kAllCommands = {
    Command::list,   Command::kill,  Command::reset, Command::audit, Command::guard,
    Command::doctor, Command::check, Command::agent, Command::top,   Command::mcp,
};

const char* command_name(Command command);

// The command a word names exactly; empty for any other word.
std::optional<Command> command_named(std::string_view word);

// Every command's name, in the order above: what a misspelt word is compared with.
const std::vector<std::string>& command_words();

}  // namespace gpukill::cli

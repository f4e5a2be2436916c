#include "cli/command_id.hpp"

namespace gpukill::cli {

const char* command_name(Command command) {
    switch (command) {
        case Command::list:
            return "list";
        case Command::kill:
            return "kill";
        case Command::reset:
            return "reset";
        case Command::audit:
            return "audit";
        case Command::guard:
            return "guard";
        case Command::doctor:
            return "doctor";
        case Command::check:
            return "check";
        case Command::agent:
            return "agent";
        case Command::top:
            return "top";
        case Command::mcp:
            return "mcp";
    }
    return "?";
}

std::optional<Command> command_named(std::string_view word) {
    for (Command command : kAllCommands) {
        if (word == command_name(command)) return command;
    }
    return std::nullopt;
}

const std::vector<std::string>& command_words() {
    static const std::vector<std::string> words = [] {
        std::vector<std::string> names;
        for (Command command : kAllCommands) names.emplace_back(command_name(command));
        return names;
    }();
    return words;
}

}  // namespace gpukill::cli
